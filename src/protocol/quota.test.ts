import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AuthorQuota, type QuotaKey } from './quota'
import { AUTHOR_QUOTA } from './limits'

const SMALL = { ...AUTHOR_QUOTA, cancel: 3 }
const hexId = (n: number) => n.toString(16).padStart(32, '0')
const cancel = (n: number, from = 'flooder'): QuotaKey => ({ id: hexId(n), kind: 'cancel', from })

/** The ids a peer ends up holding after taking `records` in this order. */
function held(records: readonly QuotaKey[]): string[] {
  const quota = new AuthorQuota(SMALL)
  const kept = new Set<string>()
  for (const record of records) {
    const verdict = quota.admit(record)
    if (!verdict.kept) continue
    kept.add(record.id)
    if (verdict.evicted) kept.delete(verdict.evicted)
  }
  return [...kept].sort()
}

describe('the per-author quota', () => {
  it('keeps an author’s lowest ids of a kind, evicting the highest for a lower one', () => {
    const quota = new AuthorQuota(SMALL)
    expect(quota.admit(cancel(5))).toEqual({ kept: true })
    expect(quota.admit(cancel(7))).toEqual({ kept: true })
    expect(quota.admit(cancel(6))).toEqual({ kept: true })
    expect(quota.allows(cancel(9))).toBe(false)
    expect(quota.admit(cancel(9))).toEqual({ kept: false })
    expect(quota.allows(cancel(1))).toBe(true)
    expect(quota.admit(cancel(1))).toEqual({ kept: true, evicted: hexId(7) })
    expect(quota.count('flooder', 'cancel')).toBe(3)
    // a record already kept stays kept, and evicts nothing
    expect(quota.admit(cancel(5))).toEqual({ kept: true })
  })

  it('counts each author and kind apart', () => {
    const quota = new AuthorQuota(SMALL)
    for (let i = 0; i < 3; i++) quota.admit(cancel(i))
    expect(quota.admit(cancel(10, 'honest'))).toEqual({ kept: true })
    expect(quota.admit({ id: hexId(11), kind: 'claim', from: 'flooder' })).toEqual({ kept: true })
  })

  it('frees a place when a kept record is removed (archived)', () => {
    const quota = new AuthorQuota(SMALL)
    for (let i = 0; i < 3; i++) quota.admit(cancel(i))
    quota.remove(cancel(1))
    expect(quota.admit(cancel(9))).toEqual({ kept: true })
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
})
