/**
 * Rules 1 and 2 of docs/PROTOCOL.md §0.1 (binds, owners and members) over
 * one room's member records, leaving out the ids in `out` (the records a
 * removal froze, membership.ts). Pure; membership.ts calls it once per
 * change of `out` while it walks the epoch chain.
 */
import type { AdmitRecord, BindRecord, RekeyRecord, WireRecord } from './records'
import { bindVerifies } from './validate'

export interface MemberInfo {
  /** member id (base64url Ed25519 public key) */
  id: string
  /** the name its admit gives; null for a root owner that has not admitted itself yet */
  name: string | null
  /** X25519 box key from its admit; null as for `name` */
  box: string | null
  /** the room's creator (named by the stable id) */
  rootOwner: boolean
  /** admitted as a co-owner (the root owner is an owner without being one) */
  coOwner: boolean
  /** member id of the owner whose admit counts (null for the root owner) */
  admittedBy: string | null
  admittedAt: number | null
}

/** One room's member records, each list in the order the rules read it. */
export interface MemberRecords {
  /** valid binds, by id */
  binds: BindRecord[]
  /** admits by (at, id) */
  admits: AdmitRecord[]
  /** rekeys by id */
  rekeys: RekeyRecord[]
}

/** What rules 1 and 2 give: who each PeerId is bound to, the owners and the members. */
export interface Admission {
  /** PeerId → admitted or not members of its counted binds, in bind id order */
  boundTo: ReadonlyMap<string, readonly string[]>
  /** the root owner and every co-owner (removed or not) */
  owners: ReadonlySet<string>
  /** every admitted member (the root owner included) */
  members: ReadonlyMap<string, MemberInfo>
  /** the members `peerId` is bound to (none: an empty list) */
  bound(peerId: string): readonly string[]
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** The member records of room `room` in `records` (binds checked again: records from anywhere are safe). */
export function collectMemberRecords(room: string, records: Iterable<WireRecord>): MemberRecords {
  const binds: BindRecord[] = []
  const admits: AdmitRecord[] = []
  const rekeys: RekeyRecord[] = []
  const seen = new Set<string>()
  for (const record of records) {
    if (record.room !== room || seen.has(record.id)) continue
    seen.add(record.id)
    if (record.kind === 'bind' && bindVerifies(record)) binds.push(record)
    else if (record.kind === 'admit') admits.push(record)
    else if (record.kind === 'rekey') rekeys.push(record)
  }
  binds.sort(byId)
  admits.sort((a, b) => a.at - b.at || byId(a, b))
  rekeys.sort(byId)
  return { binds, admits, rekeys }
}

/** Rules 1 and 2 over `records` but those in `out`, with `owner` the root owner. */
export function admission(
  owner: string,
  records: MemberRecords,
  out: ReadonlySet<string>,
): Admission {
  /** PeerId → members it holds counted binds to, in bind id order */
  const boundTo = new Map<string, string[]>()
  for (const bind of records.binds) {
    if (out.has(bind.id)) continue
    const list = boundTo.get(bind.from) ?? []
    if (!list.includes(bind.member)) list.push(bind.member)
    boundTo.set(bind.from, list)
  }
  const bound = (peerId: string): readonly string[] => boundTo.get(peerId) ?? []
  const admits = records.admits.filter((admit) => !out.has(admit.id))

  // a least fixpoint over owners (co-owners only ever join it)
  const coOwners = new Set<string>()
  const counts = (admit: AdmitRecord, owners: ReadonlySet<string>) => {
    const by = bound(admit.from).filter((m) => owners.has(m))
    return admit.member === owner ? by.includes(owner) : by.length > 0
  }
  for (let changed = true; changed;) {
    changed = false
    const owners = new Set([owner, ...coOwners])
    for (const admit of admits) {
      if (admit.coOwner && admit.member !== owner && !coOwners.has(admit.member)) {
        if (counts(admit, owners)) {
          coOwners.add(admit.member)
          changed = true
        }
      }
    }
  }
  const owners = new Set([owner, ...coOwners])
  // each member as its counted admit with the smallest (at, id) says (admits are in that order)
  const members = new Map<string, MemberInfo>([[owner, rootInfo(owner)]])
  for (const admit of admits) {
    if (!counts(admit, owners)) continue
    const root = admit.member === owner
    const known = members.get(admit.member)
    if (known !== undefined && !(root && known.name === null)) continue
    members.set(admit.member, {
      id: admit.member,
      name: admit.name,
      box: admit.box,
      rootOwner: root,
      coOwner: coOwners.has(admit.member),
      admittedBy: root ? null : lowest(bound(admit.from).filter((m) => owners.has(m))),
      admittedAt: root ? null : admit.at,
    })
  }
  return { boundTo, owners, members, bound }
}

function rootInfo(owner: string): MemberInfo {
  return {
    id: owner,
    name: null,
    box: null,
    rootOwner: true,
    coOwner: false,
    admittedBy: null,
    admittedAt: null,
  }
}

/** The smallest of a non-empty list. */
export function lowest(list: readonly string[]): string {
  return [...list].sort()[0]!
}

/** An owner (in `adm`) not in `removed` that `peerId` is bound to, the lowest; undefined if none. */
export function actingOwner(
  adm: Admission,
  peerId: string,
  removed: { has(member: string): boolean },
): string | undefined {
  const owners = adm.bound(peerId).filter((m) => adm.owners.has(m) && !removed.has(m))
  return owners.length === 0 ? undefined : lowest(owners)
}

/**
 * The PeerIds, not in `frozen` yet, bound (in `adm`) to admitted members
 * that are all in `removed` (one at least): from the removal that made them
 * so on, their records count only if that removal's rekey keeps them
 * (membership.ts).
 */
export function newlyFrozen(
  adm: Admission,
  removed: { has(member: string): boolean },
  frozen: { has(peerId: string): boolean },
): string[] {
  const peers: string[] = []
  for (const [peerId, list] of adm.boundTo) {
    if (frozen.has(peerId)) continue
    const admitted = list.filter((m) => adm.members.has(m))
    if (admitted.length > 0 && admitted.every((m) => removed.has(m))) peers.push(peerId)
  }
  return peers
}
