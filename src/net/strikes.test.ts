/**
 * The strike and ban bookkeeping (strikes.ts), with a fake clock: strikes
 * decay and ban; with a member lookup they add up per member and a ban of
 * one PeerId refuses every PeerId of its member, including one bound later.
 */
import { describe, expect, it } from 'vitest'
import { Strikes } from './strikes'

const [TAB1, TAB2, AGENT, OTHER] = ['12D3KooWTab1', '12D3KooWTab2', '12D3KooWAgent', '12D3KooWBob']

function setup(members: Map<string, string> = new Map()) {
  let clock = 1_000_000
  const bans: Array<[string, string | undefined]> = []
  const strikes = new Strikes({
    threshold: 10,
    banMs: 60_000,
    decayMs: 10_000,
    now: () => clock,
    memberOf: (peer) => members.get(peer),
    onBan: (peer, _reason, member) => bans.push([peer, member]),
  })
  return { strikes, bans, members, advance: (ms: number) => (clock += ms) }
}

describe('strikes per PeerId (no member known)', () => {
  it('bans at the threshold, decays one strike per interval, forgets the ban after its time', () => {
    const { strikes, bans, advance } = setup()
    expect(strikes.strike(TAB1, 'junk', 6)).toBe(false)
    advance(20_000)
    expect(strikes.count(TAB1)).toBe(4)
    expect(strikes.strike(TAB1, 'junk', 5)).toBe(false)
    expect(strikes.strike(TAB1, 'junk', 1)).toBe(true)
    expect(bans).toEqual([[TAB1, undefined]])
    expect(strikes.isBanned(TAB1)).toBe(true)
    expect(strikes.isBanned(TAB2)).toBe(false)
    advance(60_000)
    expect(strikes.isBanned(TAB1)).toBe(false)
  })
})

describe('strikes per member', () => {
  const alice = () =>
    new Map([
      [TAB1, 'alice'],
      [TAB2, 'alice'],
      [OTHER, 'bob'],
    ])

  it('two PeerIds of one member add up their strikes; another member’s are apart', () => {
    const { strikes, bans } = setup(alice())
    expect(strikes.strike(TAB1, 'junk', 5)).toBe(false)
    expect(strikes.count(TAB2)).toBe(5)
    expect(strikes.count(OTHER)).toBe(0)
    strikes.strike(OTHER, 'junk', 9)
    expect(strikes.strike(TAB2, 'junk', 5)).toBe(true)
    expect(bans).toEqual([[TAB2, 'alice']])
    expect(strikes.isBanned(OTHER)).toBe(false)
  })

  it('a ban of one PeerId refuses every PeerId of its member, and one bound later, for the ban’s time', () => {
    const { strikes, members, advance } = setup(alice())
    strikes.strike(TAB1, 'flood', 10)
    expect(strikes.isBanned(TAB1)).toBe(true)
    expect(strikes.isBanned(TAB2)).toBe(true)
    expect(strikes.isBanned(AGENT)).toBe(false)
    // the member mints a PeerId and binds it: refused as soon as the bind is known
    members.set(AGENT, 'alice')
    expect(strikes.isBanned(AGENT)).toBe(true)
    expect(strikes.isBanned(OTHER)).toBe(false)
    advance(60_000)
    expect([TAB1, TAB2, AGENT].map((p) => strikes.isBanned(p))).toEqual([false, false, false])
  })

  it('a PeerId banned before its bind was known bans its member once it is', () => {
    const { strikes, members, advance } = setup(new Map([[TAB2, 'alice']]))
    strikes.strike(TAB1, 'junk', 10)
    expect(strikes.isBanned(TAB2)).toBe(false)
    members.set(TAB1, 'alice')
    advance(1_000)
    // asked before TAB1 is: the ban reaches the member through TAB1's own
    expect(strikes.isBanned(TAB2)).toBe(true)
    expect(strikes.isBanned(TAB1)).toBe(true)
    advance(59_000)
    expect(strikes.isBanned(TAB2)).toBe(false)
  })

  it('strikes a PeerId took before its bind was known count toward its member', () => {
    const { strikes, members } = setup(new Map([[TAB2, 'alice']]))
    strikes.strike(TAB1, 'junk', 6)
    members.set(TAB1, 'alice')
    expect(strikes.count(TAB1)).toBe(6)
    expect(strikes.strike(TAB2, 'junk', 3)).toBe(false)
    expect(strikes.strike(TAB1, 'junk', 1)).toBe(true)
    expect(strikes.isBanned(TAB2)).toBe(true)
  })
})
