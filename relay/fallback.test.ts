import { describe, expect, it } from 'vitest'
import { peerIdFromString } from '@libp2p/peer-id'
import { silentLogger } from '../src/net/log'
import { DEFAULT_FALLBACK_LIMITS, FallbackRelay, type FallbackLimits } from './fallback'
import { RefusalLog } from './limits'

const F = '12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA'
const G = '12D3KooWEBRFxZjvB9iUcuYvqhGBv1ZkF1Qm1mxwkqAkbZPzcbLy'
const P = peerIdFromString('12D3KooWSHHCZfHmZqXLUmREZ3pmcwVTojoP3ba6JB3DHBz8mbqW')

function scene(limits: Partial<FallbackLimits> = {}) {
  let now = 0
  const links = new Map<string, number>()
  const reservations = new Map<string, { limit?: { data?: bigint; duration?: number } }>([
    [F, {}],
    [G, {}],
  ])
  const changed: string[] = []
  const relay = new FallbackRelay({
    limits: { ...DEFAULT_FALLBACK_LIMITS, ...limits },
    refusals: new RefusalLog(silentLogger),
    reservationOf: (peer) => reservations.get(peer),
    linksTo: (peer) => links.get(peer) ?? 0,
    onChange: (peer) => changed.push(peer),
    now: () => now,
  })
  return {
    relay,
    links,
    reservations,
    changed,
    advance: (ms: number) => (now += ms),
  }
}

describe("the relay's fallback", () => {
  it('grants up to its peers at once, raising their reservation to the fallback link limits', () => {
    const s = scene({ maxPeers: 1 })
    expect(s.relay.request(F, 'no-webrtc')).toEqual({ cause: 'no-webrtc', relaying: 'granted' })
    expect(s.reservations.get(F)!.limit).toEqual({
      data: DEFAULT_FALLBACK_LIMITS.linkBytes,
      duration: DEFAULT_FALLBACK_LIMITS.linkDurationMs,
    })
    expect(s.relay.request(G, 'ice-failed')).toEqual({ cause: 'ice-failed', relaying: 'full' })
    expect(s.reservations.get(G)!.limit).toBeUndefined()
    // one leaves: the next one asking is granted
    s.relay.release(F)
    expect(s.relay.state(F)).toBeUndefined()
    expect(s.relay.request(G, 'ice-failed').relaying).toBe('granted')
  })

  it('off: every peer that asks is refused, and links to it too', () => {
    const s = scene({ enabled: false })
    expect(s.relay.request(F, 'no-webrtc').relaying).toBe('off')
    expect(s.relay.denyLink(P, peerIdFromString(F))).toBe(true)
  })

  it('leaves the links of peers that did not ask alone (signalling)', () => {
    const s = scene({ enabled: false })
    expect(s.relay.denyLink(P, peerIdFromString(G))).toBe(false)
  })

  it('caps the links to one peer at once, and the bytes of its hour', () => {
    const linkBytes = DEFAULT_FALLBACK_LIMITS.linkBytes
    const s = scene({ linksPerPeer: 2, peerBytesPerHour: 3 * Number(linkBytes) })
    s.relay.request(F, 'no-webrtc')
    const to = peerIdFromString(F)
    s.links.set(F, 2)
    expect(s.relay.denyLink(P, to)).toBe(true)
    s.links.set(F, 0)
    // three links' allowances an hour
    expect([s.relay.denyLink(P, to), s.relay.denyLink(P, to), s.relay.denyLink(P, to)]).toEqual([
      false,
      false,
      false,
    ])
    expect(s.relay.denyLink(P, to)).toBe(true)
    expect(s.relay.state(F)?.relaying).toBe('full')
    expect(s.changed).toEqual([F])
    // a third of an hour later one allowance is back: granted again
    s.advance(20 * 60_000 + 1_000)
    s.relay.tick()
    expect(s.relay.state(F)?.relaying).toBe('granted')
    expect(s.relay.denyLink(P, to)).toBe(false)
  })

  it('caps the bytes of all relayed peers together', () => {
    const linkBytes = Number(DEFAULT_FALLBACK_LIMITS.linkBytes)
    const s = scene({ totalBytesPerHour: 2 * linkBytes })
    s.relay.request(F, 'no-webrtc')
    s.relay.request(G, 'no-webrtc')
    expect(s.relay.denyLink(P, peerIdFromString(F))).toBe(false)
    expect(s.relay.denyLink(P, peerIdFromString(G))).toBe(false)
    expect(s.relay.denyLink(P, peerIdFromString(F))).toBe(true)
    expect(s.relay.state(F)?.relaying).toBe('full')
  })
})
