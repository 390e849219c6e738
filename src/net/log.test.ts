import { afterEach, describe, expect, it, vi } from 'vitest'
import { disable, enable } from '@libp2p/logger'
import { consoleLogger, debugLog, lineLogger } from './log'

afterEach(() => {
  vi.restoreAllMocks()
  disable()
})

/** Captures what the debug loggers print (weald writes to stderr in Node). */
function captureDebug(): string[] {
  const lines: string[] = []
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk))
    return true
  })
  return lines
}

describe('logging under murmuration:*', () => {
  it('debug lines are silent unless murmuration:* is enabled, then carry the namespace', () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => {})
    const lines = captureDebug()
    const log = consoleLogger('net', { info: 'debug' })
    log.debug('sync: session failed', { peer: 'p1' })
    log.info('direct link up', { peer: 'p1' })
    expect(lines.join('')).toBe('')
    expect(info).not.toHaveBeenCalled()

    enable('murmuration:*')
    const on = consoleLogger('net', { info: 'debug' })
    on.debug('sync: session failed', { peer: 'p1' })
    on.info('direct link up')
    const text = lines.join('')
    expect(text).toContain('murmuration:net')
    expect(text).toContain('sync: session failed {"peer":"p1"}')
    expect(text).toContain('direct link up')
    expect(info).not.toHaveBeenCalled() // a tab's console stays for people
  })

  it('a namespace can be picked on its own, as DEBUG=murmuration:runtime', () => {
    enable('murmuration:runtime')
    expect(debugLog('runtime').enabled).toBe(true)
    expect(debugLog('net').enabled).toBe(false)
  })

  it('warnings and errors always reach the console; info does where an operator watches', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const error = vi.spyOn(console, 'error').mockImplementation(() => {})
    const info = vi.spyOn(console, 'info').mockImplementation(() => {})
    const relay = consoleLogger('relay')
    relay.info('discover: joined', { room: 'lobby' })
    relay.warn('peer banned', { peer: 'p2' })
    relay.error('boom')
    expect(info).toHaveBeenCalledWith('[relay] discover: joined {"room":"lobby"}')
    expect(warn).toHaveBeenCalledWith('[relay] peer banned {"peer":"p2"}')
    expect(error).toHaveBeenCalledWith('[relay] boom')
  })

  it('lineLogger gives people info and up, and debug to the namespace', () => {
    const written: string[] = []
    const lines = captureDebug()
    const log = lineLogger((l) => written.push(l))
    log.debug('relay dial failed')
    log.info('relay connected', { relay: 'r' })
    log.warn('slow')
    expect(written).toEqual(['relay connected {"relay":"r"}', 'warning: slow'])
    expect(lines.join('')).toBe('')
  })
})
