import { describe, expect, it } from 'vitest'
import { summary } from './connection-summary.fixture'
import { cutOff, LINK_WORDS, linkCounts, linkWay, outOfReach, RESTING_WORDS } from './links'

describe('link words', () => {
  it('counts each way, best first', () => {
    const s = summary([
      { peerId: 'a', kind: 'direct-webrtc', path: 'turn' },
      { peerId: 'b', kind: 'direct-webrtc', path: 'lan' },
      { peerId: 'c', kind: 'direct-webrtc', path: 'turn' },
      { peerId: 'd', kind: 'relayed' },
      { peerId: 'f', kind: 'via-relay' },
    ])
    expect(linkCounts(s)).toBe(
      '1 direct on the LAN, 2 relayed through TURN, 1 through the relay (no direct link possible), 1 via the relay only, no plan traffic yet',
    )
    expect(linkWay({ peerId: 'x', kind: 'direct-webrtc', path: 'nat' })).toBe('nat')
    expect(linkWay({ peerId: 'x', kind: 'other' })).toBe('other')
  })

  it('two direct links of one kind whose way the browser hides read as what they are (issue 56)', () => {
    const s = summary([
      { peerId: 'a', kind: 'direct-webrtc', path: 'lan' },
      { peerId: 'b', kind: 'direct-webrtc', path: 'direct' },
      { peerId: 'c', kind: 'direct-webrtc' },
    ])
    // not "1 direct on the LAN, 1 direct": each says why it differs
    expect(linkCounts(s)).toBe(
      '1 direct on the LAN, 1 direct (LAN or NAT: the browser does not say which), 1 direct (way not known yet)',
    )
    for (const words of Object.values(LINK_WORDS)) expect(words).not.toBe('direct')
  })

  it('says what resting means', () => {
    expect(RESTING_WORDS).toMatch(/few links.*save power/)
  })

  it('cut off: peers known, none linked for plan traffic (a link through the relay carries it)', () => {
    expect(cutOff(summary([{ peerId: 'd', kind: 'relayed' }], 3))).toBe(true)
    expect(cutOff(summary([], 2))).toBe(true)
    expect(cutOff(summary([], 0))).toBe(false)
    expect(cutOff(summary([{ peerId: 'a', kind: 'direct-webrtc', path: 'turn' }], 3))).toBe(false)
    expect(cutOff(summary([{ peerId: 'a', kind: 'via-relay' }], 3))).toBe(false)
    expect(cutOff({ ...summary([], 2), relay: 'down' })).toBe(false)
  })

  it('out of reach: peers the relay named, or all known when it refuses this tab', () => {
    expect(outOfReach(summary([], 4))).toBe(0)
    expect(
      outOfReach(summary([], 4, { cannotLink: { cause: 'no-webrtc', relaying: 'off' } })),
    ).toBe(4)
    // waiting for the relay's answer: nothing is out of reach yet
    expect(outOfReach(summary([], 4, { cannotLink: { cause: 'no-webrtc' } }))).toBe(0)
    const refused = { peerId: 'f', cause: 'no-webrtc' as const, relaying: 'full' as const }
    expect(outOfReach(summary([], 4, { unreachable: [refused] }))).toBe(1)
  })
})
