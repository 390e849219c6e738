/** The pure reconciliation core: what each side learns it lacks, and what it costs. */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8 } from '../net/bytes'
import {
  IdSet,
  ReconcileError,
  initialMessage,
  reconcileInMemory,
  respond,
  type Range,
  type ReconcileParams,
} from './reconcile'
import { SYNC_PARAMS } from '../net/sync'

const idOf = (n: number) => bytesToHex(sha256(utf8(`record ${n}`))).slice(0, 32)
const ids = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => idOf(from + i))
const SMALL: ReconcileParams = {
  branching: 4,
  idlistThreshold: 3,
  maxIdsPerRange: 5,
  maxRanges: 10_000,
  maxHave: 10_000,
}
const sorted = (xs: Iterable<string>) => [...xs].sort()

describe('range-based reconciliation', () => {
  it('builds the same set from a sorted list as from any order (tombstones held or not)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 150 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 20 }),
        (held, gone) => {
          const heldIds = held.map(idOf)
          const goneIds = gone.map(idOf)
          const any = new IdSet(heldIds, goneIds)
          const fromSorted = new IdSet(sorted(heldIds), goneIds, { sorted: true })
          expect(fromSorted.sorted).toEqual(any.sorted)
          expect(fromSorted.fingerprintAll()).toEqual(any.fingerprintAll())
          for (const id of any.sorted) expect(fromSorted.held(id)).toBe(any.held(id))
        },
      ),
      { numRuns: 200 },
    )
  })

  it('finds exactly what each side lacks, for any two sets (with tombstones)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 400 }), { maxLength: 200 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 400 }), { maxLength: 200 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 400 }), { maxLength: 30 }),
        (a, b, archivedByA) => {
          const aHeld = a.filter((n) => !archivedByA.includes(n)).map(idOf)
          const aGone = archivedByA.map(idOf)
          const bHeld = b.map(idOf)
          const A = new IdSet(aHeld, aGone)
          const B = new IdSet(bHeld)
          const r = reconcileInMemory(A, B, SMALL)
          const aAll = new Set([...aHeld, ...aGone])
          expect(sorted(r.aNeeds)).toEqual(sorted(bHeld.filter((id) => !aAll.has(id))))
          // B is never offered what A archived, and never asks for it
          expect(sorted(r.bNeeds)).toEqual(sorted(aHeld.filter((id) => !bHeld.includes(id))))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('costs a few small messages when two big sets differ by a few ids', () => {
    const common = ids(0, 30_000)
    const A = new IdSet([...common, idOf(-1)])
    const B = new IdSet([...common, idOf(-2), idOf(-3)])
    let bytes = 0
    const r = reconcileInMemory(A, B, SYNC_PARAMS, (_from, message) => {
      for (const range of message) {
        bytes += 18 + ('ids' in range ? range.ids.length * 17 : 16)
      }
    })
    expect(r.aNeeds.sort()).toEqual([idOf(-2), idOf(-3)].sort())
    expect(r.bNeeds).toEqual([idOf(-1)])
    expect(r.messages).toBeLessThanOrEqual(7)
    // against 510 kB for sending every id
    expect(bytes).toBeLessThan(16_000)
  })

  it('an empty side gets every id offered in have ranges of bounded length', () => {
    const A = new IdSet([])
    const B = new IdSet(ids(0, 2_500))
    const first = initialMessage(A, SYNC_PARAMS)
    expect(first).toEqual([{ upper: null, mode: 'idlist', ids: [], gone: [] }])
    const { reply, need } = respond(B, first, SYNC_PARAMS)
    expect(need).toEqual([])
    expect(reply.map((r) => (r.mode === 'have' ? r.ids.length : -1))).toEqual([1000, 1000, 500])
    expect(respond(A, reply, SYNC_PARAMS).need.length).toBe(2_500)
  })

  it('defers what exceeds the budgets instead of refusing the peer', () => {
    const A = new IdSet([])
    const B = new IdSet(ids(0, 50))
    const r = respond(B, initialMessage(A, SMALL), { ...SMALL, maxHave: 20 })
    expect(r.deferred).toBe(true)
    expect(r.reply.flatMap((x) => (x.mode === 'have' ? x.ids : [])).length).toBe(20)
  })

  it('refuses malformed messages with a ReconcileError', () => {
    const S = new IdSet(ids(0, 10))
    const [a, b] = sorted([idOf(1), idOf(2)]) as [string, string]
    const bad: Range[][] = [
      [],
      [{ upper: a, mode: 'skip' }],
      [
        { upper: b, mode: 'skip' },
        { upper: a, mode: 'skip' },
        { upper: null, mode: 'skip' },
      ],
      [
        { upper: null, mode: 'skip' },
        { upper: null, mode: 'skip' },
      ],
      [
        { upper: a, mode: 'idlist', ids: [b], gone: [] },
        { upper: null, mode: 'skip' },
      ],
      [{ upper: null, mode: 'idlist', ids: [b, a], gone: [] }],
      [{ upper: null, mode: 'have', ids: ids(0, 6).sort(), gone: [] } as Range],
      [{ upper: null, mode: 'fingerprint', fingerprint: new Uint8Array(3) }],
    ]
    for (const m of bad) expect(() => respond(S, m, SMALL)).toThrow(ReconcileError)
  })
})
