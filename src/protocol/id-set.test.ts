/** IdSet.withHeld: the grown set is the set built from scratch, to the byte of every fingerprint. */
import { describe, expect, it } from 'vitest'
import { IdSet } from './id-set'

/** A deterministic pseudo-random hex id (lengths 1 to 20 bytes). */
function id(seed: number): string {
  let x = (seed * 2654435761) >>> 0
  const bytes = 1 + (x % 20)
  let out = ''
  for (let i = 0; i < bytes; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    out += (x >>> 24).toString(16).padStart(2, '0')
  }
  return out
}

describe('IdSet.withHeld', () => {
  it('grows a set as the constructor would build it, tombstones kept', () => {
    const all = [...new Set(Array.from({ length: 3_000 }, (_, i) => id(i)))]
    const dead = all.slice(0, 50)
    let held = all.slice(50, 1_000)
    let set = new IdSet(held, dead)
    for (let step = 1_000; step < all.length; step += 500) {
      // new ids land everywhere in the order: first, last, between old ones
      const added = all.slice(step, step + 500).sort()
      set = set.withHeld(added)
      held = [...held, ...added]
      const built = new IdSet(held, dead)
      expect(set.sorted).toEqual(built.sorted)
      for (const d of dead.slice(0, 5)) expect(set.held(d)).toBe(false)
      for (let a = 0; a < built.size; a += 97) {
        expect(set.fingerprint(a, Math.min(built.size, a + 301))).toEqual(
          built.fingerprint(a, Math.min(built.size, a + 301)),
        )
      }
      expect(set.fingerprintAll()).toEqual(built.fingerprintAll())
    }
  })

  it('refuses an id already in the set, and ids out of order', () => {
    const set = new IdSet(['aa', 'cc'], ['ee'])
    expect(() => set.withHeld(['cc'])).toThrow(/already/)
    expect(() => set.withHeld(['ee'])).toThrow(/already/)
    expect(() => set.withHeld(['dd', 'bb'])).toThrow(/sorted/)
    expect(set.withHeld([])).toBe(set)
  })
})
