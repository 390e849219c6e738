import { describe, expect, it } from 'vitest'
import { shareStructure } from './share-structure'

describe('structural sharing', () => {
  it('keeps the previous object when nothing changed', () => {
    const prev = { goals: [{ id: 'a', slots: [{ status: 'open' }] }], n: 1 }
    const next = structuredClone(prev)
    expect(shareStructure(prev, next)).toBe(prev)
  })

  it('replaces only the path to a change', () => {
    const prev = {
      goals: [
        { id: 'a', slots: [{ status: 'open' }, { status: 'done' }] },
        { id: 'b', slots: [{ status: 'open' }] },
      ],
    }
    const next = structuredClone(prev)
    next.goals[0]!.slots[0]!.status = 'claimed'
    const shared = shareStructure(prev, next)
    expect(shared).not.toBe(prev)
    expect(shared).toEqual(next)
    expect(shared.goals[0]).not.toBe(prev.goals[0])
    expect(shared.goals[0]!.slots[1]).toBe(prev.goals[0]!.slots[1])
    expect(shared.goals[1]).toBe(prev.goals[1])
  })

  it('handles growth, shrinkage, new keys and nulls', () => {
    const prev = { list: [1, 2], a: null as null | { x: number }, b: 1 }
    const next = { list: [1, 2, 3], a: { x: 1 }, b: 1, c: 'new' }
    const shared = shareStructure(prev, next as typeof prev)
    expect(shared).toEqual(next)
    const shrunk = { list: [1], a: null, b: 1, c: 'new' }
    expect(shareStructure<unknown>(next, shrunk)).toEqual({
      list: [1],
      a: null,
      b: 1,
      c: 'new',
    })
  })

  it('takes the new value when there is no previous one', () => {
    const next = { a: 1 }
    expect(shareStructure(undefined, next)).toBe(next)
  })
})
