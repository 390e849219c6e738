/** The store's ids kept between sessions are the set built afresh, whatever the store did. */
import { describe, expect, it } from 'vitest'
import { IdSet } from '../protocol/reconcile'
import { StoreIds } from './sync-ids'
import { MemoryStore, recordIdOf } from './testing/memory-store'

const enc = (s: string) => new TextEncoder().encode(s)

function fresh(store: MemoryStore): IdSet {
  return new IdSet(store.ids(), store.tombstones())
}

describe('StoreIds', () => {
  it('follows a store that grows, loses records and archives, as a fresh set would', () => {
    const store = new MemoryStore()
    const ids = new StoreIds(store)
    let n = 0
    const grow = (k: number) => {
      for (let i = 0; i < k; i++) store.put(enc(`record ${n++}`))
    }
    const check = () => {
      const kept = ids.current()
      const built = fresh(store)
      expect(kept.sorted).toEqual(built.sorted)
      expect(kept.fingerprintAll()).toEqual(built.fingerprintAll())
    }
    check()
    grow(50)
    check()
    grow(200) // merged into the last sorted list
    check()
    check() // unchanged
    const gone = recordIdOf(enc('record 7'))
    store.records.delete(gone)
    store.archived.add(gone)
    check()
    store.records.delete(recordIdOf(enc('record 8')))
    grow(1) // one removed, one added: same count, built afresh
    check()
    grow(30)
    check()
  })

  it('grows the last set by the ids added since when the store only grew, else builds afresh', () => {
    const store = new MemoryStore()
    const ids = new StoreIds(store)
    let n = 0
    const grow = (k: number) => {
      for (let i = 0; i < k; i++) store.put(enc(`record ${n++}`))
    }
    const same = () => {
      const kept = ids.current()
      const built = fresh(store)
      expect(kept.sorted).toEqual(built.sorted)
      for (const [a, b] of [
        [0, kept.size],
        [3, 40],
        [17, kept.size - 1],
      ] as const) {
        expect(kept.fingerprint(a, b)).toEqual(built.fingerprint(a, b))
      }
    }
    grow(100)
    same()
    // a late joiner: the store grows between sessions, nothing else changes
    for (let session = 0; session < 5; session++) {
      grow(40)
      same()
    }
    expect(ids.built).toEqual({ fresh: 1, grown: 5 })
    // an archived record: a tombstone more, built afresh
    const gone = recordIdOf(enc('record 3'))
    store.records.delete(gone)
    store.archived.add(gone)
    same()
    expect(ids.built).toEqual({ fresh: 2, grown: 5 })
    grow(10)
    same()
    expect(ids.built).toEqual({ fresh: 2, grown: 6 })
    // a tombstone's record held again (while still a tombstone): built afresh
    store.put(enc('record 3'))
    same()
    expect(ids.built).toEqual({ fresh: 3, grown: 6 })
  })
})
