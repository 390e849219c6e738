/**
 * A store's ids as sync reconciles them (IdSet: held ids and tombstones,
 * sorted and encoded), kept between sessions: a peer serving a late joiner
 * session after session, or a joiner whose store only grows, does not sort
 * its hundred thousand ids again each time.
 */
import { IdSet, mergeSorted } from '../protocol/reconcile'
import { isWireId } from './sync-wire'
import type { RecordStore } from './types'

export class StoreIds {
  /** the set built at the store's last revision (RecordStore.revision) */
  private cached: { revision: number; set: IdSet } | undefined
  /** the held ids of the last set built, sorted; `index` and `count` are of all ids then */
  private sorted: { ids: string[]; index: Set<string>; count: number } | undefined

  constructor(private readonly store: RecordStore) {}

  /**
   * The store's ids and tombstones, sorted and encoded (IdSet): built again
   * only when the store changed since the last session. A peer serving a
   * late joiner session after session sorts its 100,000 ids once, not twenty
   * times.
   */
  current(): IdSet {
    const store = this.store
    const revision = store.revision?.()
    if (revision !== undefined && this.cached?.revision === revision) return this.cached.set
    const tombstones = [...(store.tombstones?.() ?? [])].filter(isWireId)
    const set = new IdSet(this.heldSorted(), tombstones, { sorted: true })
    this.cached = revision === undefined ? undefined : { revision, set }
    return set
  }

  /**
   * The store's held ids, sorted. A store that only grew since the last
   * session (a late joiner, session after session) has its new ids sorted and
   * merged into the last list, not the whole set sorted again.
   */
  private heldSorted(): string[] {
    const all = [...this.store.ids()]
    const last = this.sorted
    if (last !== undefined) {
      const added = all.filter((id) => !last.index.has(id))
      // nothing removed (archived, evicted): the old list plus the new ids
      if (last.count + added.length === all.length) {
        for (const id of added) last.index.add(id)
        const ids = mergeSorted(last.ids, added.filter(isWireId).sort())
        this.sorted = { ids, index: last.index, count: all.length }
        return ids
      }
    }
    const ids = all.filter(isWireId).sort()
    this.sorted = { ids, index: new Set(all), count: all.length }
    return ids
  }
}
