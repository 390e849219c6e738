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
 *   (a least fixpoint, membership-admission.ts).
 * - The **epoch chain**: for e = 1, 2, … the rekeys with `epoch` e whose
 *   `prev` is the chain's rekey of epoch e − 1 (null for e = 1), by an owner
 *   not removed at an earlier epoch, not removing the root owner; of one
 *   candidate it is the winner, of several the lowest id that no standing
 *   rekey refutes (membership-contest.ts). Its `removed` are removed at
 *   epoch e. The current epoch is the chain's length.
 * - **The freeze** (since version 8): once epoch e's rekey leaves a PeerId
 *   bound to removed members only, that PeerId's records count only if their
 *   ids are in that rekey's `kept`. For its member records that changes who
 *   is bound and admitted, so after each epoch the freeze is applied again
 *   until no PeerId is left to freeze (it only ever adds to the records left
 *   out, so it ends), before the next epoch is decided. The chain is thus
 *   decided epoch by epoch, each epoch on the records its predecessors left:
 *   a well-defined function of the record set, with no circle between who is
 *   removed and which records count.
 * - A PeerId acts for the admitted member of its counted binds: not removed
 *   before removed, then the lowest bind id. A record counts (counts()) when
 *   its author acts for a member and no freeze left it out.
 */
import type { RekeyRecord, WireRecord } from './records'
import type { RekeyRecipient } from './member-key'
import {
  actingOwner,
  admission,
  collectMemberRecords,
  newlyFrozen,
  type MemberInfo,
} from './membership-admission'
import { contestWinner } from './membership-contest'

export type { MemberInfo }

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

/** What decides whether a record counts: its id and its author. */
export interface RecordRef {
  id: string
  from: string
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
  /** PeerId → the epoch whose removal froze it (it is bound to removed members only) */
  readonly frozen: ReadonlyMap<string, number>
  /** the member `peerId` acts for, or undefined */
  memberOf(peerId: string): string | undefined
  /**
   * Whether a record counts: its author acts for an admitted member, and if
   * a removal froze the author, that removal's rekey keeps the record.
   */
  counts(record: RecordRef): boolean
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
  const held = collectMemberRecords(room, records)
  /** member records a freeze left out */
  const out = new Set<string>()
  /** PeerId → the epoch that froze it */
  const frozen = new Map<string, number>()
  const removed = new Map<string, Removal>()
  const chain: RekeyRecord[] = []
  let adm = admission(owner, held, out)
  for (let epoch = 1; ; epoch++) {
    const prev = chain.length === 0 ? null : chain[chain.length - 1]!.id
    const candidates = held.rekeys.filter(
      (rekey) =>
        !out.has(rekey.id) &&
        rekey.epoch === epoch &&
        rekey.prev === prev &&
        !rekey.removed.includes(owner) &&
        actingOwner(adm, rekey.from, removed) !== undefined,
    )
    if (candidates.length === 0) break
    const winner =
      candidates.length === 1
        ? candidates[0]!
        : contestWinner({ owner, records: held, out, adm, removed, frozen }, candidates)
    chain.push(winner)
    const by = actingOwner(adm, winner.from, removed)!
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
    // the freeze, again until no PeerId bound to removed members only is left unfrozen
    const kept = new Set(winner.kept)
    for (let peers = newlyFrozen(adm, removed, frozen); peers.length > 0;) {
      const now = new Set(peers)
      for (const peerId of peers) frozen.set(peerId, epoch)
      const before = out.size
      for (const list of [held.binds, held.admits, held.rekeys])
        for (const r of list) if (now.has(r.from) && !kept.has(r.id)) out.add(r.id)
      if (out.size === before) break
      adm = admission(owner, held, out)
      peers = newlyFrozen(adm, removed, frozen)
    }
  }

  const peers = new Map<string, string>()
  for (const [peerId, list] of adm.boundTo) {
    const admitted = list.filter((m) => adm.members.has(m))
    const chosen = admitted.find((m) => !removed.has(m)) ?? admitted[0]
    if (chosen !== undefined) peers.set(peerId, chosen)
  }
  const keptBy = chain.map((rekey) => new Set(rekey.kept))
  const current = new Set([...adm.owners].filter((m) => !removed.has(m)))
  return Object.freeze({
    room,
    owner,
    members: adm.members,
    removed,
    owners: current,
    peers,
    epoch: chain.length,
    rekeys: chain,
    frozen,
    memberOf: (peerId: string) => peers.get(peerId),
    counts: ({ id, from }: RecordRef) => {
      if (!peers.has(from)) return false
      const at = frozen.get(from)
      return at === undefined || keptBy[at - 1]!.has(id)
    },
    isActive: (member: string) => adm.members.has(member) && !removed.has(member),
  })
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
