import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AuthorQuota, type QuotaKey } from './quota'
import { AUTHOR_QUOTA } from './limits'

const SMALL = { ...AUTHOR_QUOTA, cancel: 3 }
const hexId = (n: number) => n.toString(16).padStart(32, '0')
const cancel = (n: number, from = 'flooder'): QuotaKey => ({ id: hexId(n), kind: 'cancel', from })

/** The ids a peer ends up holding after taking `records` in this order. */
function held(records: readonly QuotaKey[], limits = SMALL): string[] {
  const quota = new AuthorQuota(limits)
  const kept = new Set<string>()
  for (const record of records) {
    const verdict = quota.admit(record)
    if (!verdict.kept) continue
    kept.add(record.id)
    for (const id of verdict.evictions) kept.delete(id)
  }
  return [...kept].sort()
}

describe('the per-author quota', () => {
  it('keeps an author’s lowest ids of a kind, evicting the highest for a lower one', () => {
    const quota = new AuthorQuota(SMALL)
    expect(quota.admit(cancel(5))).toEqual({ kept: true, evictions: [] })
    expect(quota.admit(cancel(7))).toEqual({ kept: true, evictions: [] })
    expect(quota.admit(cancel(6))).toEqual({ kept: true, evictions: [] })
    expect(quota.allows(cancel(9))).toBe(false)
    expect(quota.admit(cancel(9))).toEqual({ kept: false })
    expect(quota.allows(cancel(1))).toBe(true)
    expect(quota.admit(cancel(1))).toEqual({ kept: true, evicted: hexId(7), evictions: [hexId(7)] })
    expect(quota.count('flooder', 'cancel')).toBe(3)
    // a record already kept stays kept, and evicts nothing
    expect(quota.admit(cancel(5))).toEqual({ kept: true, evictions: [] })
  })

  it('counts each author and kind apart', () => {
    const quota = new AuthorQuota(SMALL)
    for (let i = 0; i < 3; i++) quota.admit(cancel(i))
    expect(quota.admit(cancel(10, 'honest'))).toEqual({ kept: true, evictions: [] })
    expect(quota.admit({ id: hexId(11), kind: 'claim', from: 'flooder' })).toEqual({
      kept: true,
      evictions: [],
    })
  })

  it('frees a place when a kept record is removed (archived)', () => {
    const quota = new AuthorQuota(SMALL)
    for (let i = 0; i < 3; i++) quota.admit(cancel(i))
    quota.remove(cancel(1))
    expect(quota.admit(cancel(9))).toEqual({ kept: true, evictions: [] })
  })

  it('holds the same records whatever the order they arrive in, and never more than the quota', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 40 }),
        fc.integer(),
        (ns, seed) => {
          const records = ns.map((n) => cancel(n))
          const shuffled = [...records].sort(
            (a, b) =>
              ((parseInt(a.id, 16) * 31 + seed) % 17) - ((parseInt(b.id, 16) * 31 + seed) % 17),
          )
          const distinct = [...new Set(ns)]
            .sort((a, b) => a - b)
            .slice(0, SMALL.cancel)
            .map(hexId)
          expect(held(records)).toEqual(distinct)
          expect(held(shuffled)).toEqual(distinct)
        },
      ),
    )
  })

  it('two peers that each saw part of a flood converge on the same records once they merge', () => {
    const flood = Array.from({ length: 50 }, (_, i) => cancel((i * 37) % 101))
    const a = held(flood.slice(0, 30))
    const b = held(flood.slice(20))
    const merged = held(
      [...a, ...b].map((id) => ({ id, kind: 'cancel' as const, from: 'flooder' })),
    )
    expect(merged).toEqual(held(flood))
  })

  describe('per member (since version 7)', () => {
    const bind = (n: number, from: string, member: string): QuotaKey => ({
      id: hexId(1_000 + n),
      kind: 'bind',
      from,
      member,
    })
    const peers = ['p1', 'p2', 'p3', 'p4', 'p5']

    it('five PeerIds bound to one member share one member’s quota', () => {
      const quota = new AuthorQuota(SMALL)
      peers.forEach((peer, i) => quota.admit(bind(i, peer, 'alice')))
      // each PeerId's first cancel is kept until the member's three are used
      const verdicts = peers.map((peer, i) => quota.admit(cancel(10 + i, peer)).kept)
      expect(verdicts).toEqual([true, true, true, false, false])
      expect(quota.count('p5', 'cancel')).toBe(3)
      expect(quota.sameSlot('p1', 'p5')).toBe(true)
      // an unbound PeerId has its own
      expect(quota.admit(cancel(20, 'stranger')).kept).toBe(true)
      expect(quota.sameSlot('p1', 'stranger')).toBe(false)
    })

    it('a bind that arrives after the records joins the slots and evicts the highest ids', () => {
      const quota = new AuthorQuota(SMALL)
      for (const [n, peer] of [
        [3, 'p1'],
        [9, 'p1'],
        [4, 'p2'],
        [1, 'p2'],
      ] as const) {
        expect(quota.admit(cancel(n, peer)).kept).toBe(true)
      }
      expect(quota.admit(bind(0, 'p1', 'alice'))).toEqual({ kept: true, evictions: [] })
      const joined = quota.admit(bind(1, 'p2', 'alice'))
      expect(joined).toEqual({ kept: true, evictions: [hexId(9)] })
      expect(quota.count('p1', 'cancel')).toBe(3)
    })

    it('binds count per PeerId and a PeerId’s extra bind is refused', () => {
      const quota = new AuthorQuota({ ...SMALL, bind: 2 })
      expect(quota.admit(bind(5, 'p1', 'alice')).kept).toBe(true)
      expect(quota.admit(bind(6, 'p1', 'bob')).kept).toBe(true)
      expect(quota.admit(bind(7, 'p1', 'carol')).kept).toBe(false)
      expect(quota.count('p1', 'bind')).toBe(2)
      expect(quota.admit(bind(1, 'p2', 'alice')).kept).toBe(true)
    })

    it('a bind pushed out of its PeerId’s bind quota splits the slot it had joined', () => {
      const quota = new AuthorQuota({ ...SMALL, bind: 2 })
      quota.admit(bind(1, 'p2', 'alice'))
      quota.admit(bind(9, 'p1', 'alice'))
      quota.admit(cancel(3, 'p1'))
      quota.admit(cancel(4, 'p2'))
      expect(quota.sameSlot('p1', 'p2')).toBe(true)
      expect(quota.count('p1', 'cancel')).toBe(2)
      quota.admit(bind(5, 'p1', 'bob'))
      // a lower bind of p1 pushes its bind to alice (the highest id) out
      expect(quota.admit(bind(2, 'p1', 'carol'))).toEqual({
        kept: true,
        evicted: hexId(1_009),
        evictions: [hexId(1_009)],
      })
      expect(quota.sameSlot('p1', 'p2')).toBe(false)
      expect(quota.count('p1', 'cancel')).toBe(1)
      expect(quota.count('p2', 'cancel')).toBe(1)
      // archiving a bind splits too
      quota.remove(bind(1, 'p2', 'alice'))
      expect(quota.count('p2', 'bind')).toBe(0)
    })

    it('keeps the same records whatever the order of binds and records (seeded shuffles)', () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 4 })), {
            maxLength: 40,
          }),
          fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 5 }),
          fc.integer(),
          (cancels, bound, seed) => {
            const records: QuotaKey[] = [
              // a content id names its author: no two authors share one
              ...cancels.map(([n, p]) => cancel(n * 8 + p, peers[p])),
              ...bound.map((p, i) => bind(i, peers[p]!, 'alice')),
            ]
            const shuffled = shuffle(records, seed)
            const bindsFirst = [...records].sort((a, b) =>
              a.kind === b.kind ? 0 : a.kind === 'bind' ? -1 : 1,
            )
            const expected = held(bindsFirst)
            expect(held(records)).toEqual(expected)
            expect(held(shuffled)).toEqual(expected)
            // and it is the rule: per slot (the bound PeerIds together), the lowest ids
            const slotOf = (from: string) => (bound.some((p) => peers[p] === from) ? 'alice' : from)
            const bySlot = new Map<string, string[]>()
            for (const r of records.filter((r) => r.kind === 'cancel')) {
              const list = bySlot.get(slotOf(r.from)) ?? []
              if (!list.includes(r.id)) list.push(r.id)
              bySlot.set(slotOf(r.from), list)
            }
            const rule = [...bySlot.values()].flatMap((ids) => ids.sort().slice(0, SMALL.cancel))
            const binds = [...new Set(records.filter((r) => r.kind === 'bind').map((r) => r.id))]
            expect(expected).toEqual([...rule, ...binds].sort())
          },
        ),
        { seed: 45, numRuns: 300 },
      )
    })
  })
})

/** A seeded Fisher–Yates shuffle (mulberry32). */
function shuffle<T>(list: readonly T[], seed: number): T[] {
  let state = seed >>> 0
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const out = [...list]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}
