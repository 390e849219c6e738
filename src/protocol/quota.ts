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
 *
 * Per member (since version 7): an "author" is a **slot**, every PeerId and
 * member joined by valid `bind` records (a bind needs both the PeerId's and
 * the member's key, so nobody can join someone else's slot). Five PeerIds
 * bound to one member share one member's quota; an unbound PeerId has its
 * own. Binds themselves count per PeerId (AUTHOR_QUOTA.bind, the lowest
 * ids), since the slots are made of them. When a bind joins two slots, the
 * joined slot keeps the lowest ids of both per kind: the lowest n of a union
 * are the lowest n of the two lowest-n sets, so a peer that saw the bind
 * before the records and one that saw it after keep the same ones. (Only a
 * PeerId with more binds than its bind quota, which no honest tab has, can
 * make a bind be evicted and its slot split; records evicted while it was
 * joined stay evicted, so two peers may then differ on that PeerId's own
 * records.)
 */
import { AUTHOR_QUOTA } from './limits'
import type { PlanRecord } from './records'

export type PlanKind = PlanRecord['kind']

/** What the quota needs of a record (a bind: its member too). */
export interface QuotaKey {
  id: string
  kind: PlanKind
  from: string
  /** a bind's member: the slot it joins its author to */
  member?: string
}

export type QuotaVerdict =
  /**
   * kept; `evicted` is the id of the slot's record it pushed out, if any;
   * `evictions` every record it pushed out (a bind joining two slots can push
   * out several), `evicted` among them
   */
  | { kept: true; evicted?: string; evictions: string[] }
  /** over the quota: not to be stored, forwarded or offered */
  | { kept: false }

export class AuthorQuota {
  /** per slot (a union-find root) and kind: the kept ids, ascending */
  private readonly kept = new Map<string, Map<PlanKind, string[]>>()
  /** the author and kind of every kept record but binds: slots are regrouped from them */
  private readonly authors = new Map<string, { from: string; kind: PlanKind }>()
  /** per PeerId: its kept binds, ascending by id */
  private readonly binds = new Map<string, { id: string; member: string }[]>()
  /** union-find parents over `p <PeerId>` and `m <member>` nodes */
  private parent = new Map<string, string>()

  constructor(private readonly limits: Readonly<Record<PlanKind, number>> = AUTHOR_QUOTA) {}

  /** Would `record` be kept (without keeping it)? */
  allows(record: QuotaKey): boolean {
    const ids = this.list(record)
    const limit = this.limits[record.kind]
    return ids.length < limit || record.id < ids[ids.length - 1]!
  }

  /**
   * Keeps `record` if the quota allows it, evicting the slot's highest id
   * when full. A verified record only: a bind joins its author's slot to its
   * member's, so its signature must have been checked (validate.ts).
   */
  admit(record: QuotaKey): QuotaVerdict {
    if (record.kind === 'bind') return this.admitBind(record)
    const slot = this.slotOf(record.from)
    let kinds = this.kept.get(slot)
    if (kinds === undefined) {
      kinds = new Map()
      this.kept.set(slot, kinds)
    }
    let ids = kinds.get(record.kind)
    if (ids === undefined) {
      ids = []
      kinds.set(record.kind, ids)
    }
    const at = lowerBound(ids, record.id)
    if (ids[at] === record.id) return { kept: true, evictions: [] }
    if (ids.length >= this.limits[record.kind] && at === ids.length) return { kept: false }
    ids.splice(at, 0, record.id)
    this.authors.set(record.id, { from: record.from, kind: record.kind })
    if (ids.length <= this.limits[record.kind]) return { kept: true, evictions: [] }
    const evicted = ids.pop()!
    this.authors.delete(evicted)
    return { kept: true, evicted, evictions: [evicted] }
  }

  /** Forgets a kept record (archived): its place is free again. */
  remove(record: QuotaKey): void {
    if (record.kind === 'bind') {
      const list = this.binds.get(record.from)
      const at = list?.findIndex((b) => b.id === record.id) ?? -1
      if (at < 0) return
      list!.splice(at, 1)
      if (list!.length === 0) this.binds.delete(record.from)
      this.regroup()
      return
    }
    if (!this.authors.has(record.id)) return
    this.authors.delete(record.id)
    const slot = this.slotOf(record.from)
    const ids = this.kept.get(slot)?.get(record.kind)
    if (ids === undefined) return
    const at = lowerBound(ids, record.id)
    if (ids[at] === record.id) ids.splice(at, 1)
  }

  /** Records of `kind` kept now in `author`'s slot (binds: `author`'s own). */
  count(author: string, kind: PlanKind): number {
    if (kind === 'bind') return this.binds.get(author)?.length ?? 0
    return this.kept.get(this.slotOf(author))?.get(kind)?.length ?? 0
  }

  /** Whether two PeerIds share one slot (bound to one member, directly or not). */
  sameSlot(a: string, b: string): boolean {
    return this.slotOf(a) === this.slotOf(b)
  }

  private list(record: QuotaKey): readonly string[] {
    if (record.kind === 'bind') return (this.binds.get(record.from) ?? []).map((b) => b.id)
    return this.kept.get(this.slotOf(record.from))?.get(record.kind) ?? []
  }

  private admitBind(record: QuotaKey): QuotaVerdict {
    let list = this.binds.get(record.from)
    if (list === undefined) {
      list = []
      this.binds.set(record.from, list)
    }
    const at = lowerBound(
      list.map((b) => b.id),
      record.id,
    )
    if (list[at]?.id === record.id) return { kept: true, evictions: [] }
    if (list.length >= this.limits.bind && at === list.length) return { kept: false }
    list.splice(at, 0, { id: record.id, member: record.member ?? '' })
    if (list.length > this.limits.bind) {
      // a lower bind pushed out the highest: the slots are made again without it
      const evicted = list.pop()!.id
      this.regroup()
      return { kept: true, evicted, evictions: [evicted] }
    }
    if (record.member === undefined) return { kept: true, evictions: [] }
    return { kept: true, evictions: this.join(`p ${record.from}`, `m ${record.member}`) }
  }

  /** Joins two slots; returns the ids the joined slot has no room for. */
  private join(a: string, b: string): string[] {
    const ra = this.find(a)
    const rb = this.find(b)
    if (ra === rb) return []
    this.parent.set(rb, ra)
    const from = this.kept.get(rb)
    this.kept.delete(rb)
    if (from === undefined) return []
    let into = this.kept.get(ra)
    if (into === undefined) {
      into = new Map()
      this.kept.set(ra, into)
    }
    const evictions: string[] = []
    for (const [kind, ids] of from) {
      const merged = [...(into.get(kind) ?? []), ...ids].sort()
      const limit = this.limits[kind]
      for (const id of merged.splice(limit)) {
        evictions.push(id)
        this.authors.delete(id)
      }
      into.set(kind, merged)
    }
    return evictions
  }

  /** Makes the slots again from the kept binds (after one was evicted or removed). */
  private regroup(): void {
    this.parent = new Map()
    for (const [peerId, list] of this.binds) {
      for (const bind of list) this.union(`p ${peerId}`, `m ${bind.member}`)
    }
    // slots only split here, so no slot gets more than it held: nothing is evicted
    this.kept.clear()
    for (const [id, { from, kind }] of this.authors) {
      const slot = this.slotOf(from)
      let kinds = this.kept.get(slot)
      if (kinds === undefined) {
        kinds = new Map()
        this.kept.set(slot, kinds)
      }
      const ids = kinds.get(kind)
      if (ids === undefined) kinds.set(kind, [id])
      else ids.push(id)
    }
    for (const kinds of this.kept.values()) for (const ids of kinds.values()) ids.sort()
  }

  private union(a: string, b: string): void {
    const ra = this.find(a)
    const rb = this.find(b)
    if (ra !== rb) this.parent.set(rb, ra)
  }

  private find(node: string): string {
    let root = node
    for (let up = this.parent.get(root); up !== undefined; up = this.parent.get(root)) root = up
    // path compression: every node on the way points at the root
    for (let at = node; at !== root;) {
      const up = this.parent.get(at)!
      this.parent.set(at, root)
      at = up
    }
    return root
  }

  private slotOf(peerId: string): string {
    return this.find(`p ${peerId}`)
  }
}

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
