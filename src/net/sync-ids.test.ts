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
})
