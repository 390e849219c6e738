import { describe, expect, it } from 'vitest'
import type { ConnectionSummary, PeerLink } from '../../runtime/types'
import { cutOff, cutOffAdvice, linkCounts, linkWay } from './links'

function summary(peers: PeerLink[], known = peers.length): ConnectionSummary {
  const n = (k: PeerLink['kind']) => peers.filter((p) => p.kind === k).length
  return {
    relay: 'up',
    relays: [],
    peers,
    direct: n('direct-webrtc'),
    relayed: n('relayed'),
    other: n('other'),
    known,
    quiet: false,
  }
}

describe('link words', () => {
  it('counts each way, best first', () => {
    const s = summary([
      { peerId: 'a', kind: 'direct-webrtc', path: 'turn' },
      { peerId: 'b', kind: 'direct-webrtc', path: 'lan' },
      { peerId: 'c', kind: 'direct-webrtc', path: 'turn' },
      { peerId: 'd', kind: 'relayed' },
      { peerId: 'e', kind: 'direct-webrtc' },
    ])
    expect(linkCounts(s)).toBe(
      '1 direct on the LAN, 1 direct, 2 relayed through TURN, 1 via the relay only, no plan traffic yet',
    )
    expect(linkWay({ peerId: 'x', kind: 'direct-webrtc', path: 'nat' })).toBe('nat')
    expect(linkWay({ peerId: 'x', kind: 'other' })).toBe('other')
  })

  it('cut off: peers known, none linked for plan traffic', () => {
    expect(cutOff(summary([{ peerId: 'd', kind: 'relayed' }], 3))).toBe(true)
    expect(cutOff(summary([], 2))).toBe(true)
    expect(cutOff(summary([], 0))).toBe(false)
    expect(cutOff(summary([{ peerId: 'a', kind: 'direct-webrtc', path: 'turn' }], 3))).toBe(false)
    expect(cutOff({ ...summary([], 2), relay: 'down' })).toBe(false)
  })

  it('tells the host to set up TURN, and a friend whom to ask', () => {
    expect(cutOffAdvice(true)).toContain('--turn')
    expect(cutOffAdvice(true)).toContain('Invite a friend anywhere')
    expect(cutOffAdvice(false)).toContain('whoever sent you this link')
  })
})
