/**
 * Membership (docs/PROTOCOL.md §0.1, since version 7): who is in a room, as
 * a pure function of its `bind`, `admit` and `rekey` records. Two peers
 * holding the same records derive the same membership, whatever order the
 * records came in: every choice below is a fixpoint or sorts by record id.
 *
 * - The **root owner** is the member named by the stable room id (its
 *   creator). It needs no admit; its own admit (one by a PeerId bound to it)
 *   tells its name and box key.
 * - An `admit` counts when its author PeerId has a valid bind to an
 *   **owner**: the root owner, or a member admitted with `coOwner` true
 *   (a least fixpoint: admits by co-owners whom a counted admit names). An
 *   admit of the root owner counts only from the root owner's own PeerIds.
 *   A member's name, box key, admitter and time come from its counted admit
 *   with the earliest (at, id); it is a co-owner if any counted admit says so.
 * - The **epoch chain**: epoch 0, then for e = 1, 2, … the rekey with
 *   `epoch` e whose `prev` is the chain's rekey of epoch e − 1 (null for
 *   e = 1), whose author is bound to an owner not removed at an earlier
 *   epoch, and which does not remove the root owner; of several, the lowest
 *   record id wins. Its `removed` are removed at epoch e. The current epoch
 *   is the chain's length.
 * - A PeerId acts for the admitted member of its valid binds: not removed
 *   before removed, then the lowest bind id. Records by a PeerId acting for
 *   nobody count for nothing in the plan; a removed member's records stay
 *   (history: what reaches the room after its removal cannot be sealed with
 *   the new epoch's key).
 */
import type { AdmitRecord, BindRecord, RekeyRecord, WireRecord } from './records'
import type { RekeyRecipient } from './member-key'
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

export interface Removal {
  member: string
  /** member id of the owner whose rekey removed it */
  by: string
  /** the rekey's `at`: its author's clock */
  at: number
  reason: 'remove' | 'reset'
  /** the epoch it was removed at (it holds the secrets of the epochs before) */
  epoch: number
  /** the winning rekey's record id */
  rekey: string
}

export interface Membership {
  /** stable room id */
  readonly room: string
  /** root owner's member id */
  readonly owner: string
  /** every admitted member (the root owner included), removed ones too */
  readonly members: ReadonlyMap<string, MemberInfo>
  /** members removed, with by whom, when, why, at which epoch */
  readonly removed: ReadonlyMap<string, Removal>
  /** who may admit and rekey now: the root owner and co-owners not removed */
  readonly owners: ReadonlySet<string>
  /** PeerId → the member it acts for (admitted; removed ones too, for their history) */
  readonly peers: ReadonlyMap<string, string>
  /** current epoch: 0 until the first rekey */
  readonly epoch: number
  /** the winning rekey of each epoch 1..epoch, in order (rekeys[e - 1] is epoch e's) */
  readonly rekeys: readonly RekeyRecord[]
  /** the member `peerId` acts for, or undefined */
  memberOf(peerId: string): string | undefined
  /** whether `peerId`'s plan records count (it acts for an admitted member) */
  counts(peerId: string): boolean
  /** admitted and not removed */
  isActive(member: string): boolean
}

/**
 * The membership of room `room` (stable id) owned by `owner`, from any
 * records (other kinds and other rooms' are ignored). Binds are checked
 * again here (cached), so records from anywhere are safe to pass.
 */
export function deriveMembership(
  room: string,
  owner: string,
  records: Iterable<WireRecord>,
): Membership {
  const binds: BindRecord[] = []
  const admits: AdmitRecord[] = []
  const rekeys: RekeyRecord[] = []
  for (const record of records) {
    if (record.room !== room) continue
    if (record.kind === 'bind' && bindVerifies(record)) binds.push(record)
    else if (record.kind === 'admit') admits.push(record)
    else if (record.kind === 'rekey') rekeys.push(record)
  }
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  binds.sort(byId)
  admits.sort((a, b) => a.at - b.at || byId(a, b))
  rekeys.sort(byId)

  /** PeerId → members it holds valid binds to, in bind id order */
  const boundTo = new Map<string, string[]>()
  for (const bind of binds) {
    const list = boundTo.get(bind.from) ?? []
    if (!list.includes(bind.member)) list.push(bind.member)
    boundTo.set(bind.from, list)
  }
  const bound = (peerId: string) => boundTo.get(peerId) ?? []

  // admission: a least fixpoint over owners (co-owners only ever join it)
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

  // the epoch chain
  const removed = new Map<string, Removal>()
  const chain: RekeyRecord[] = []
  for (let epoch = 1; ; epoch++) {
    const prev = chain.length === 0 ? null : chain[chain.length - 1]!.id
    const winner = rekeys.find(
      (rekey) =>
        rekey.epoch === epoch &&
        rekey.prev === prev &&
        !rekey.removed.includes(owner) &&
        bound(rekey.from).some((m) => owners.has(m) && !removed.has(m)),
    )
    if (winner === undefined) break
    chain.push(winner)
    const by = lowest(bound(winner.from).filter((m) => owners.has(m) && !removed.has(m)))
    for (const member of winner.removed) {
      if (removed.has(member)) continue
      removed.set(member, {
        member,
        by,
        at: winner.at,
        reason: winner.reason,
        epoch,
        rekey: winner.id,
      })
    }
  }

  const peers = new Map<string, string>()
  for (const [peerId, list] of boundTo) {
    const admitted = list.filter((m) => members.has(m))
    const chosen = admitted.find((m) => !removed.has(m)) ?? admitted[0]
    if (chosen !== undefined) peers.set(peerId, chosen)
  }
  const current = new Set([...owners].filter((m) => !removed.has(m)))
  return Object.freeze({
    room,
    owner,
    members,
    removed,
    owners: current,
    peers,
    epoch: chain.length,
    rekeys: chain,
    memberOf: (peerId: string) => peers.get(peerId),
    counts: (peerId: string) => peers.has(peerId),
    isActive: (member: string) => members.has(member) && !removed.has(member),
  })
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

function lowest(list: readonly string[]): string {
  return [...list].sort()[0]!
}

/**
 * Who a new rekey seals to: every admitted member with a box key, not
 * removed and not in `removing` (the rekey's own `removed`), in id order.
 */
export function rekeyRecipients(
  membership: Membership,
  removing: readonly string[],
): RekeyRecipient[] {
  return [...membership.members.values()]
    .filter((m) => m.box !== null && membership.isActive(m.id) && !removing.includes(m.id))
    .map((m) => ({ member: m.id, box: m.box! }))
    .sort((a, b) => (a.member < b.member ? -1 : 1))
}

/** The `epoch` and `prev` a new rekey must carry to follow the chain. */
export function nextRekey(membership: Membership): { epoch: number; prev: string | null } {
  const last = membership.rekeys[membership.rekeys.length - 1]
  return { epoch: membership.epoch + 1, prev: last?.id ?? null }
}

/** The PeerIds acting for `member`. */
export function peersOf(membership: Membership, member: string): string[] {
  return [...membership.peers].filter(([, m]) => m === member).map(([peerId]) => peerId)
}

/**
 * The member `peerId` acts for if that member is in now (admitted, not
 * removed), else undefined: whose presence, claims and links to count live
 * (a removed member's PeerIds still count for history, not for work).
 */
export function activeMember(membership: Membership, peerId: string): string | undefined {
  const member = membership.memberOf(peerId)
  return member !== undefined && membership.isActive(member) ? member : undefined
}
