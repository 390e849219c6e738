import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalJson, canonicalJsonWithout, NonCanonicalValueError } from './canonical'
import { contentId, rendezvousOrder } from './hash'

describe('canonical JSON', () => {
  it('sorts keys at every depth and drops no values', () => {
    expect(canonicalJson({ b: 1, a: [{ d: true, c: null }] })).toBe(
      '{"a":[{"c":null,"d":true}],"b":1}',
    )
  })

  it('refuses values that have no single encoding', () => {
    expect(() => canonicalJson({ x: Number.NaN })).toThrow(NonCanonicalValueError)
    expect(() => canonicalJson(new Date())).toThrow(NonCanonicalValueError)
    expect(() => canonicalJson({ x: 1n })).toThrow(NonCanonicalValueError)
  })

  it('is stable under key order and parses back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value)
        expect(canonicalJson(JSON.parse(text))).toBe(text)
        expect(contentId(JSON.parse(text))).toBe(contentId(value))
      }),
    )
  })

  it('encodes an object with and without one key as canonicalJson does', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('a', 'id', 'z', 'ids'), fc.jsonValue()),
        (value) => {
          const { id: _id, ...rest } = value
          expect(canonicalJsonWithout(value, 'id')).toEqual({
            whole: canonicalJson(value),
            without: canonicalJson(rest),
          })
        },
      ),
    )
    // only the object's own key goes, not one of the same name deeper down
    expect(canonicalJsonWithout({ id: 'x', a: { id: 'x' } }, 'id').without).toBe('{"a":{"id":"x"}}')
  })
})

describe('rendezvous order', () => {
  it('is the same whatever order the peers are listed in', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 12 }),
        fc.string(),
        (peers, subject) => {
          const reversed = [...peers].reverse()
          expect(rendezvousOrder(subject, reversed)).toEqual(rendezvousOrder(subject, peers))
        },
      ),
    )
  })

  it('spreads first choices over peers', () => {
    const peers = ['a', 'b', 'c', 'd']
    const firsts = new Map<string, number>()
    for (let i = 0; i < 400; i++) {
      const first = rendezvousOrder(`task-${i}`, peers)[0]!
      firsts.set(first, (firsts.get(first) ?? 0) + 1)
    }
    for (const peer of peers) expect(firsts.get(peer)).toBeGreaterThan(60)
  })
})
