/**
 * A store's ids as sync reconciles them (IdSet: held ids and tombstones,
 * sorted and encoded), kept between sessions: a peer serving a late joiner
 * session after session, or a joiner whose store only grows, does not sort
 * and encode its hundred thousand ids again each time.
 */
import { IdSet } from '../protocol/reconcile'
import { isWireId } from './sync-wire'
import type { RecordStore } from './types'

export class StoreIds {
  /** the set built at the store's last revision (RecordStore.revision) */
  private cached: { revision: number; set: IdSet } | undefined
  /** the last set built, with the store's ids in the order ids() gave them then, and its tombstones */
  private last: { set: IdSet; order: string[]; tombstones: string[] } | undefined
  /** sets built from scratch and grown from the last one (tests count the work) */
  readonly built = { fresh: 0, grown: 0 }

  constructor(private readonly store: RecordStore) {}

  /**
   * The store's ids and tombstones, sorted and encoded (IdSet): built again
   * only when the store changed since the last session, and then, when the
   * store only grew, from the last set and the ids added since.
   */
  current(): IdSet {
    const store = this.store
    const revision = store.revision?.()
    if (revision !== undefined && this.cached?.revision === revision) return this.cached.set
    const order = [...store.ids()]
    const tombstones = [...(store.tombstones?.() ?? [])].filter(isWireId)
    let set = this.grown(order, tombstones)
    if (set === undefined) {
      set = new IdSet(order.filter(isWireId).sort(), tombstones, { sorted: true })
      this.built.fresh++
    } else this.built.grown++
    this.last = { set, order, tombstones }
    this.cached = revision === undefined ? undefined : { revision, set }
    return set
  }

  /**
   * The last set with the ids the store added since, when that is all that
   * changed: the store still lists the last ids first, in the same order
   * (a store that only grew: a late joiner, session after session), and
   * its tombstones are the same. Else undefined (built afresh).
   */
  private grown(order: readonly string[], tombstones: readonly string[]): IdSet | undefined {
    const last = this.last
    if (last === undefined || order.length < last.order.length) return undefined
    if (!sameList(tombstones, last.tombstones)) return undefined
    // the same strings in the same places: a pointer compare each, no hashing
    for (let i = 0; i < last.order.length; i++) if (order[i] !== last.order[i]) return undefined
    const added = order.slice(last.order.length).filter(isWireId).sort()
    // an id that was a tombstone and is now held changes what the set says of it
    if (added.some((id) => last.set.has(id))) return undefined
    return last.set.withHeld(added)
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
