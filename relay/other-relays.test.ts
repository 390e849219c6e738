import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { silentLogger } from '../src/net/log'
import type { RelayAddrs } from '../src/net/relay-info'
import { OTHER_RELAY_REFRESH_MS, OTHER_RELAY_RETRY_MAX_MS, otherRelays } from './other-relays'
import { isRelayInfoUrl, isRelayMultiaddr, peerIdOfAddr } from './relay-source'

const A = '12D3KooWM3D1J9MBUMYYG7o8cHMJvH9qGBtbqbvMjpbS3SXzzLyp'
const B = '12D3KooWQhjarUFZ3AGcpwuxsu6NZ4YBQRNzwBUE9imFXv6V3J6f'
const addrA = `/dns4/relay-a.example.org/tcp/443/tls/ws/p2p/${A}`
const urlB = 'https://relay-b.example.org/relay.json'
const infoB: RelayAddrs = {
  peerId: B,
  multiaddrs: [`/dns/relay-b.example.org/tcp/443/tls/ws/p2p/${B}`],
}

let stop: AbortController
beforeEach(() => {
  vi.useFakeTimers()
  stop = new AbortController()
})
afterEach(() => {
  stop.abort()
  vi.useRealTimers()
})

describe('--relay values', () => {
  it.each([
    addrA,
    `/ip4/127.0.0.1/tcp/9090/ws/p2p/${A}`,
    `/dns4/relay-a.example.org/tcp/443/wss/p2p/${A}`,
    `/dns4/relay-a.example.org/tcp/443/tls/sni/relay-a.example.org/ws/p2p/${A}`,
  ])('takes the multiaddr %s', (addr) => {
    expect(isRelayMultiaddr(addr)).toBe(true)
    expect(peerIdOfAddr(addr)).toBe(A)
  })

  it.each([
    '/ip4/127.0.0.1/tcp/9090/ws',
    `/ip4/127.0.0.1/tcp/9090/p2p/${A}`,
    '/ip4/127.0.0.1/tcp/9090/ws/p2p/not-a-peer-id',
    `wss://relay-a.example.org/p2p/${A}`,
  ])('refuses %s as a multiaddr', (addr) => expect(isRelayMultiaddr(addr)).toBe(false))

  it('takes http(s) URLs as /relay.json', () => {
    expect(isRelayInfoUrl(urlB)).toBe(true)
    expect(isRelayInfoUrl('http://127.0.0.1:9091/relay.json')).toBe(true)
    expect(isRelayInfoUrl('wss://relay-b.example.org/')).toBe(false)
    expect(isRelayInfoUrl(addrA)).toBe(false)
  })
})

describe('otherRelays', () => {
  it('lists multiaddrs at once and URLs once read, in the order given, merging a relay named twice', async () => {
    const fetchInfo = vi.fn(async () => infoB)
    const sameB = `/ip4/127.0.0.1/tcp/9190/ws/p2p/${B}`
    const relays = otherRelays({
      sources: [addrA, urlB, sameB],
      logger: silentLogger,
      signal: stop.signal,
      fetchInfo,
    })
    expect(relays.list()).toEqual([
      { peerId: A, multiaddrs: [addrA] },
      { peerId: B, multiaddrs: [sameB] },
    ])
    await relays.ready
    expect(fetchInfo).toHaveBeenCalledWith(urlB, stop.signal)
    expect(relays.list()).toEqual([
      { peerId: A, multiaddrs: [addrA] },
      { peerId: B, multiaddrs: [...infoB.multiaddrs, sameB] },
    ])
    expect(relays.waiting()).toEqual([])
  })

  it('leaves out a relay whose /relay.json cannot be read, retries it, and names it once it answers', async () => {
    let down = true
    const warned: string[] = []
    const fetchInfo = vi.fn(async () => {
      if (down) throw new Error('connection refused')
      return infoB
    })
    const relays = otherRelays({
      sources: [urlB],
      logger: { ...silentLogger, warn: (message) => warned.push(message) },
      signal: stop.signal,
      fetchInfo,
    })
    await relays.ready
    expect(relays.list()).toEqual([])
    expect(relays.waiting()).toEqual([urlB])
    // retried with backoff, warned once for the run of failures
    await vi.advanceTimersByTimeAsync(OTHER_RELAY_RETRY_MAX_MS * 3)
    expect(fetchInfo.mock.calls.length).toBeGreaterThan(2)
    expect(warned).toHaveLength(1)
    down = false
    await vi.advanceTimersByTimeAsync(OTHER_RELAY_RETRY_MAX_MS * 1.25)
    expect(relays.list()).toEqual([infoB])
    // then read again only every OTHER_RELAY_REFRESH_MS
    const calls = fetchInfo.mock.calls.length
    await vi.advanceTimersByTimeAsync(OTHER_RELAY_REFRESH_MS / 2)
    expect(fetchInfo.mock.calls.length).toBe(calls)
    await vi.advanceTimersByTimeAsync(OTHER_RELAY_REFRESH_MS / 2)
    expect(fetchInfo.mock.calls.length).toBe(calls + 1)
  })

  it('keeps the last answer while a refresh fails, and stops reading when aborted', async () => {
    let down = false
    const fetchInfo = vi.fn(async () => {
      if (down) throw new Error('timeout')
      return infoB
    })
    const relays = otherRelays({
      sources: [urlB],
      logger: silentLogger,
      signal: stop.signal,
      fetchInfo,
    })
    await relays.ready
    down = true
    await vi.advanceTimersByTimeAsync(OTHER_RELAY_REFRESH_MS)
    expect(relays.list()).toEqual([infoB])
    stop.abort()
    const calls = fetchInfo.mock.calls.length
    await vi.advanceTimersByTimeAsync(OTHER_RELAY_REFRESH_MS * 2)
    expect(fetchInfo.mock.calls.length).toBe(calls)
  })
})
