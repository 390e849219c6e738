/**
 * The room's members as people see them (the Invite panel's list, the
 * removed tab's notice, the agent's lines): pure, from the membership
 * (membership.ts) and who is heard alive now (presence).
 */
import type { Membership } from '../protocol/membership'
import type { Role } from '../protocol/records'
import { DEFAULT_OWNER_NAME } from './members-names'

export interface Removed {
  /** the owner's member id, and its name as its admit gives it */
  by: string
  byName: string
  /** the rekey's time, on its author's clock */
  at: number
  reason: 'remove' | 'reset'
}

export interface MemberView {
  id: string
  name: string
  rootOwner: boolean
  coOwner: boolean
  /** this peer's own member */
  self: boolean
  /** some PeerId acts for it (it opened its link) */
  joined: boolean
  /** its tabs and agents heard alive now (observers send no beats), with their roles */
  online: Array<{ peerId: string; role: Role; self: boolean }>
  removed: Removed | null
}

export interface MembersView {
  /** this peer's member id */
  me: string
  /** this peer may invite, remove and reset (an owner not removed) */
  manage: boolean
  /** the room's current epoch (0 until the first reset or removal) */
  epoch: number
  /** owners first, then by when they were admitted; removed members last */
  members: MemberView[]
  /** set when this peer's own member was removed or its link reset */
  removed: Removed | null
}

/** A live peer, as the runtime hears it: its PeerId and role. */
export interface LivePeer {
  peerId: string
  role: Role
}

export function membersView(
  m: Membership,
  me: string,
  self: LivePeer,
  live: readonly LivePeer[],
): MembersView {
  const name = (id: string) =>
    m.members.get(id)?.name ?? (id === m.owner ? DEFAULT_OWNER_NAME : 'an owner')
  const joined = new Set(m.peers.values())
  const removedOf = (id: string): Removed | null => {
    const r = m.removed.get(id)
    return r ? { by: r.by, byName: name(r.by), at: r.at, reason: r.reason } : null
  }
  const alive = [{ ...self, self: true }, ...live.map((p) => ({ ...p, self: false }))]
  const members = [...m.members.values()].map((info): MemberView => ({
    id: info.id,
    name: name(info.id),
    rootOwner: info.rootOwner,
    coOwner: info.coOwner,
    self: info.id === me,
    joined: joined.has(info.id) || info.id === me,
    online: m.removed.has(info.id)
      ? []
      : alive
          .filter((p) => (p.self ? info.id === me : m.memberOf(p.peerId) === info.id))
          .sort((a, b) => Number(b.self) - Number(a.self) || (a.peerId < b.peerId ? -1 : 1)),
    removed: removedOf(info.id),
  }))
  const rank = (v: MemberView) => (v.removed ? 2 : v.rootOwner || v.coOwner ? 0 : 1)
  const at = (v: MemberView) => m.members.get(v.id)?.admittedAt ?? 0
  members.sort((a, b) => rank(a) - rank(b) || at(a) - at(b) || (a.id < b.id ? -1 : 1))
  return {
    me,
    manage: m.owners.has(me) && !m.removed.has(me),
    epoch: m.epoch,
    members,
    removed: removedOf(me),
  }
}

/**
 * What a removed tab (or agent) says, in words: the issue's own sentences.
 * `time` formats the rekey's time as the person reads it.
 */
export function removedSentence(
  room: string,
  removed: Removed,
  time: (at: number) => string,
): string {
  return removed.reason === 'reset'
    ? `This invite link was reset by ${removed.byName} at ${time(removed.at)}. Ask them for a new link.`
    : `You were removed from “${room}” by ${removed.byName} at ${time(removed.at)}. Nothing new reaches this tab.`
}
