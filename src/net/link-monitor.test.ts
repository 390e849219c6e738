import type { Connection } from '@libp2p/interface'
import { describe, expect, it, vi } from 'vitest'
import { LINK_PING_INTERVAL_MS, QUIET_LINK_PING_INTERVAL_MS } from './constants'
import { LinkMonitor } from './link-monitor'
import { silentLogger } from './log'

/** A connection whose ping stream fails as told: 'dead' (hangs up), or 'alive' (no ping protocol). */
function fakeConnection(answer: 'alive' | 'dead') {
  const opened: number[] = []
  const conn = {
    status: 'open',
    remotePeer: { toString: () => 'peer-' + answer },
    newStream: vi.fn(async () => {
      opened.push(Date.now())
      const err = new Error(answer === 'alive' ? 'protocol selection failed' : 'stream reset')
      if (answer === 'alive') err.name = 'UnsupportedProtocolError'
      throw err
    }),
    abort: vi.fn(),
  }
  return conn as typeof conn & Connection
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('LinkMonitor', () => {
  it('pings a link once per interval: the busy one, or the quiet one while the room is quiet', async () => {
    const conn = fakeConnection('alive')
    const monitor = new LinkMonitor({
      connections: () => [conn],
      logger: silentLogger,
      signal: new AbortController().signal,
    })
    const pingsAt = async (t: number, quiet: boolean) => {
      monitor.tick(quiet, t)
      await settle()
      return conn.newStream.mock.calls.length
    }
    expect(await pingsAt(0, false)).toBe(0) // just seen: a new link needs no ping
    expect(await pingsAt(LINK_PING_INTERVAL_MS - 1, false)).toBe(0)
    expect(await pingsAt(LINK_PING_INTERVAL_MS, false)).toBe(1)
    // quiet: the next ping waits the quiet interval from the last one
    const last = LINK_PING_INTERVAL_MS
    expect(await pingsAt(last + LINK_PING_INTERVAL_MS, true)).toBe(1)
    expect(await pingsAt(last + QUIET_LINK_PING_INTERVAL_MS - 1, true)).toBe(1)
    expect(await pingsAt(last + QUIET_LINK_PING_INTERVAL_MS, true)).toBe(2)
    // waking brings the busy interval back at once
    const then = last + QUIET_LINK_PING_INTERVAL_MS
    expect(await pingsAt(then + LINK_PING_INTERVAL_MS, false)).toBe(3)
    expect(conn.abort).not.toHaveBeenCalled()
  })

  it('aborts a link whose ping fails, and keeps one that only lacks the protocol', async () => {
    const dead = fakeConnection('dead')
    const alive = fakeConnection('alive')
    const monitor = new LinkMonitor({
      connections: () => [dead, alive],
      logger: silentLogger,
      signal: new AbortController().signal,
    })
    monitor.tick(false, 0)
    monitor.tick(false, LINK_PING_INTERVAL_MS)
    await settle()
    await settle()
    expect(dead.abort).toHaveBeenCalledTimes(1)
    expect(alive.abort).not.toHaveBeenCalled()
  })

  it('pings nothing once its node stops', async () => {
    const conn = fakeConnection('dead')
    const stop = new AbortController()
    const monitor = new LinkMonitor({
      connections: () => [conn],
      logger: silentLogger,
      signal: stop.signal,
    })
    monitor.tick(false, 0)
    stop.abort()
    monitor.tick(false, LINK_PING_INTERVAL_MS)
    await settle()
    expect(conn.newStream).not.toHaveBeenCalled()
    expect(conn.abort).not.toHaveBeenCalled()
  })
})
