import { multiaddr } from '@multiformats/multiaddr'
import { describe, expect, it } from 'vitest'
import { pageMayDial } from './direct-addrs'

const may = (page: string, addr: string): boolean => {
  const url = new URL(page)
  return pageMayDial({ protocol: url.protocol, hostname: url.hostname })(multiaddr(addr))
}

describe('pageMayDial: the direct addresses a tab may dial', () => {
  it('a page on loopback: the WebSocket of an agent on this machine, never TCP', () => {
    expect(may('http://127.0.0.1:8080/', '/ip4/127.0.0.1/tcp/4002/ws')).toBe(true)
    expect(may('http://localhost:8080/', '/ip4/127.0.0.1/tcp/4002/ws')).toBe(true)
    expect(may('http://127.0.0.1:8080/', '/ip4/127.0.0.1/tcp/4001')).toBe(false)
    expect(may('http://127.0.0.1:8080/', '/ip6/::1/tcp/4002/ws')).toBe(true)
  })

  it('a page from a LAN address: no loopback address, which would be its own machine', () => {
    expect(may('http://10.0.0.2:8080/', '/ip4/127.0.0.1/tcp/4002/ws')).toBe(false)
    expect(may('http://10.0.0.2:8080/', '/ip4/10.0.0.7/tcp/4002/ws')).toBe(true)
  })

  it('an https page: wss anywhere, plain ws only to loopback (else mixed content)', () => {
    expect(may('https://10.0.0.2/', '/ip4/10.0.0.7/tcp/4002/ws')).toBe(false)
    expect(may('https://10.0.0.2/', '/ip4/10.0.0.7/tcp/443/wss')).toBe(true)
    expect(may('https://10.0.0.2/', '/dns4/agent.lan/tcp/443/tls/ws')).toBe(true)
    expect(may('https://127.0.0.1:8443/', '/ip4/127.0.0.1/tcp/4002/ws')).toBe(true)
  })
})
