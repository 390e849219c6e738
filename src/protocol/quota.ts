/**
 * The per-author quota on plan records (docs/PROTOCOL.md §4.1): how many
 * records of one kind by one author a peer holds at once. A member can sign
 * as many valid records as it likes (cancels of others' goals, claims of
 * tasks that do not exist); the authority rules (§5.10) make them count for
 * nothing, but without this quota every peer would store and sync them all.
 *
 * The rule is a pure function of the record set: of one author's records of
 * one kind, a peer keeps the AUTHOR_QUOTA[kind] with the lowest ids. A new
 * record with a lower id than the highest kept one takes its place (that one
 * is evicted); one with a higher id is refused. Whatever order records
 * arrive in, two peers that have seen the same records keep the same ones,
 * and the set they keep only shrinks for the flooding author as more of its
 * records are seen, so honest peers converge on the same subset. Honest
 * authors never reach the quota (limits.ts says why), so it never touches
 * them; the flooder chooses, at most, which of its own records count.
 *
 * Every door of a peer applies it: gossip (a record over the quota is
 * ignored, so not forwarded), sync (not asked for twice, never offered:
 * only records held are offered), reload and the peer's own records.
 */
import { AUTHOR_QUOTA } from './limits'
import type { PlanRecord } from './records'

export type PlanKind = PlanRecord['kind']

/** What the quota needs of a record. */
export interface QuotaKey {
  id: string
  kind: PlanKind
  from: string
}

export type QuotaVerdict =
  /** kept; `evicted` is the id of the author's record it pushed out, if any */
  | { kept: true; evicted?: string }
  /** over the quota: not to be stored, forwarded or offered */
  | { kept: false }

export class AuthorQuota {
  /** per author and kind: the kept ids, ascending */
  private readonly kept = new Map<string, string[]>()

  constructor(private readonly limits: Readonly<Record<PlanKind, number>> = AUTHOR_QUOTA) {}

  /** Would `record` be kept (without keeping it)? */
  allows(record: QuotaKey): boolean {
    const ids = this.kept.get(slot(record)) ?? []
    const limit = this.limits[record.kind]
    return ids.length < limit || record.id < ids[ids.length - 1]!
  }

  /** Keeps `record` if the quota allows it, evicting the author's highest id when full. */
  admit(record: QuotaKey): QuotaVerdict {
    const key = slot(record)
    let ids = this.kept.get(key)
    if (ids === undefined) {
      ids = []
      this.kept.set(key, ids)
    }
    const at = lowerBound(ids, record.id)
    if (ids[at] === record.id) return { kept: true }
    if (ids.length < this.limits[record.kind]) {
      ids.splice(at, 0, record.id)
      return { kept: true }
    }
    if (at === ids.length) return { kept: false }
    ids.splice(at, 0, record.id)
    return { kept: true, evicted: ids.pop()! }
  }

  /** Forgets a kept record (archived): its place is free again. */
  remove(record: QuotaKey): void {
    const ids = this.kept.get(slot(record))
    if (ids === undefined) return
    const at = lowerBound(ids, record.id)
    if (ids[at] === record.id) ids.splice(at, 1)
    if (ids.length === 0) this.kept.delete(slot(record))
  }

  /** Records of `kind` by `author` kept now. */
  count(author: string, kind: PlanKind): number {
    return this.kept.get(`${author} ${kind}`)?.length ?? 0
  }
}

const slot = (record: QuotaKey) => `${record.from} ${record.kind}`

function lowerBound(ids: readonly string[], id: string): number {
  let lo = 0
  let hi = ids.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (ids[mid]! < id) lo = mid + 1
    else hi = mid
  }
  return lo
}
