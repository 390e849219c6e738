/**
 * The runtime's members, put together: this peer's RoomMembers (members.ts)
 * with the network switch and the forwarding nodes of previous epochs
 * (forwarders.ts). Kept apart from runtime.ts, which calls it only when the
 * peer has a member (a version-7 invite); bare peers (tests, benchmarks)
 * run without one, as before.
 */
import { deriveMemberKey } from '../protocol/member-key'
import type { PlanRecord, WireRecord } from '../protocol/records'
import type { RoomKey } from '../protocol/room-key'
import { Forwarders, type ForwarderInit } from './forwarders'
import { RoomMembers, type MemberInit } from './members'
import { memoryMembersPersistence, type MembersPersistence } from './members-persist'
import type { PlanStore } from './store'

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
    async stop() {
      members.stop()
      await forwarders?.stop()
    },
  }
}

function isMemberRecord(record: PlanRecord): boolean {
  return record.kind === 'bind' || record.kind === 'admit' || record.kind === 'rekey'
}
