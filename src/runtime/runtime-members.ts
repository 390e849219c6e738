/**
 * The runtime's members, put together: this peer's RoomMembers (members.ts)
 * with the network switch and the forwarding nodes of previous epochs
 * (forwarders.ts). Kept apart from runtime.ts, which calls it only when the
 * peer has a member (a version-7 invite); bare peers (tests, benchmarks)
 * run without one, as before. Here too: the runtime's member calls
 * (memberApi), the members as people see them (viewOfMembers) and the
 * bounded sync round before a rekey.
 */
import type { SwarmNode } from '../net/types'
import { deriveMemberKey } from '../protocol/member-key'
import type { PlanRecord, Role, WireRecord } from '../protocol/records'
import type { RoomKey } from '../protocol/room-key'
import { Forwarders, type ForwarderInit } from './forwarders'
import { NotOwnerError, RoomMembers, type MemberInit } from './members'
import { memoryMembersPersistence, type MembersPersistence } from './members-persist'
import { membersView, type MembersView } from './members-view'
import type { PlanStore } from './store'
import type { PeerRuntime, RoleActivity } from './types'

/**
 * How long an owner's removal waits for its sync round with its neighbours
 * (so the rekey keeps the removed member's records they hold and it has not
 * seen yet): a session with a linked peer takes well under a second; a
 * slow one is not worth holding the removal for.
 */
export const REKEY_SYNC_MAX_MS = 5_000

export interface MemberParts {
  /** the room's member data, by stable room id (IndexedDB in a tab, a file in an agent) */
  persistence?: (stable: string) => MembersPersistence
}

export interface StartMembersInit {
  member: MemberInit
  /** the key of the link this peer started from */
  link: RoomKey
  stable: string
  peerId: string
  parts: MemberParts
  store: PlanStore
  publish: (records: WireRecord[]) => Promise<void>
  /** moves the room's network to this epoch's key */
  connect: (key: RoomKey) => Promise<void>
  /** a bounded sync round with the neighbours (before a removal, members.ts) */
  syncFirst?: () => Promise<void>
  /** stops the room's network for good (a removed member) */
  disconnect: () => Promise<void>
  /** what a forwarding node needs of the runtime (relays, createNode, logger…) */
  forwarding: Omit<ForwarderInit, 'stable' | 'membership' | 'store' | 'log'>
  onChange: () => void
  now: () => number
  log: (message: string) => void
}

export interface StartedMembers {
  members: RoomMembers
  forwarders: Forwarders
  /** once the room's network is up (or stays off): binds republished, previous epochs forwarded */
  republishAndForward(quiet: () => boolean): void
  stop(): Promise<void>
}

export async function startMembers(init: StartMembersInit): Promise<StartedMembers> {
  const persistence = init.parts.persistence?.(init.stable) ?? memoryMembersPersistence()
  let forwarders: Forwarders | null = null
  const members: RoomMembers = new RoomMembers({
    room: init.link.name,
    stable: init.stable,
    owner: init.member.owner,
    me: deriveMemberKey(init.member.seed),
    ...(init.member.name !== undefined ? { ownName: init.member.name } : {}),
    ...(init.member.admitSelf === false ? { admitSelf: false } : {}),
    peerId: init.peerId,
    linkKey: init.link,
    persistence,
    publish: init.publish,
    records: () => init.store.records().filter(isMemberRecord),
    heldBy: (peers) => init.store.heldBy(peers),
    ...(init.syncFirst ? { syncFirst: init.syncFirst } : {}),
    switchTo: init.connect,
    forward: (keys) => forwarders?.set(keys),
    onRemoved: () => {
      // nothing new reaches a removed member: no network, no forwarding
      void forwarders?.stop()
      void init.disconnect()
    },
    onChange: init.onChange,
    now: init.now,
    log: init.log,
  })
  forwarders = new Forwarders({
    ...init.forwarding,
    stable: init.stable,
    membership: () => members.membership(),
    store: init.store,
    log: init.log,
  })
  await members.start()
  return {
    members,
    forwarders,
    republishAndForward(quiet) {
      members.startRepublishing(quiet)
      forwarders?.set(members.previousKeys())
    },
    async stop() {
      members.stop()
      await forwarders?.stop()
    },
  }
}

function isMemberRecord(record: PlanRecord): boolean {
  return record.kind === 'bind' || record.kind === 'admit' || record.kind === 'rekey'
}

/** before a removal: what the neighbours hold of the member is kept too (members.ts) */
export async function syncBeforeRekey(
  node: SwarmNode | null,
  log: (message: string) => void,
): Promise<void> {
  if (!node) return
  let timer: ReturnType<typeof setTimeout> | undefined
  await Promise.race([
    node.syncNow().catch((err: Error) => log(`sync before a rekey failed: ${err.message}`)),
    new Promise((resolve) => (timer = setTimeout(resolve, REKEY_SYNC_MAX_MS))),
  ])
  clearTimeout(timer)
}

/** The room's members as people see them, with this member's tabs and agents heard alive now. */
export function viewOfMembers(
  started: StartedMembers,
  activity: RoleActivity,
  self: { peerId: string; role: Role },
): MembersView {
  const live = activity.swarm.map((p) => ({ peerId: p.peerId, role: p.role }))
  return membersView(started.members.membership(), started.members.me.id, self, live)
}

export type MemberApi = Pick<
  PeerRuntime,
  | 'members'
  | 'roomKey'
  | 'member'
  | 'invites'
  | 'invitePerson'
  | 'makeCoOwner'
  | 'removeMember'
  | 'resetInvite'
>

/** The runtime's member calls; a peer without a member answers an owner's call with NotOwnerError. */
export function memberApi(
  started: StartedMembers | null,
  own: MemberInit | undefined,
  link: RoomKey,
  view: () => MembersView | null,
): MemberApi {
  const managing = () => {
    if (!started) throw new NotOwnerError('manage members (this peer has no member)')
    return started.members
  }
  return {
    members: () => view(),
    roomKey: () => started?.members.current ?? link,
    member: () => (own ? { owner: own.owner, seed: own.seed } : null),
    invites: () => started?.members.savedInvites() ?? [],
    invitePerson: (name, coOwner) => managing().invite(name, coOwner),
    makeCoOwner: (member) => managing().makeCoOwner(member),
    removeMember: (member) => managing().remove(member),
    resetInvite: (member) => managing().reset(member),
  }
}
