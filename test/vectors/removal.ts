/**
 * Known answers for a removal (docs/PROTOCOL.md §0.1, since version 8): a
 * co-owner's records, the owner's rekey that removes it keeping some of
 * them, and what it writes after its removal (a goal, a new tab's bind, an
 * admit of a puppet co-owner, and a rekey for epoch 1 with a lower id than
 * the owner's). `expected` is what rules 3, 4, 5 and 7 make of them:
 * generate.ts puts it under `removal` in docs/test-vectors.json;
 * removal.test.ts checks it against the code.
 */
import { derivePlan } from '../../src/plan/derive'
import { PlanState } from '../../src/plan/state'
import { deriveMemberKey, sealEpochSecret, type MemberKey } from '../../src/protocol/member-key'
import { deriveMembership } from '../../src/protocol/membership'
import {
  newAdmit,
  newBind,
  newGoal,
  newRekey,
  type PlanRecord,
  type RekeyRecord,
} from '../../src/protocol/records'
import { stableRoomId } from '../../src/protocol/room-key'
import { VECTOR_MEMBER_SEEDS } from './members'

const fixed = (length: number, start: number) =>
  Uint8Array.from({ length }, (_, i) => (start + i) & 255)
const T0 = 1_700_000_010_000

/** The PeerIds of the scenario: the owner's, the removed co-owner's two, its puppet's. */
export interface RemovalPeers {
  owner: string
  guest: string
  guestTab: string
  puppet: string
}

export function removalVectors(roomName: string, peers: RemovalPeers) {
  const owner = deriveMemberKey(VECTOR_MEMBER_SEEDS.owner)
  const guest = deriveMemberKey(VECTOR_MEMBER_SEEDS.guest)
  const other = deriveMemberKey(fixed(16, 0xb0))
  const puppet = deriveMemberKey(fixed(16, 0xc0))
  const room = stableRoomId(roomName, owner.id)
  const admit = (from: string, key: MemberKey, name: string, coOwner: boolean, at: number) =>
    newAdmit(room, from, { member: key.id, box: key.box, name, coOwner }, at)
  const rekey = (from: string, removed: MemberKey, kept: string[], at: number): RekeyRecord => {
    let draws = 0
    const sealed = sealEpochSecret(
      room,
      1,
      fixed(16, 0xd0),
      [{ member: owner.id, box: owner.box }],
      (n) => fixed(n, draws++ === 0 ? 0xe0 : 0xf0),
    )
    return newRekey(
      room,
      from,
      { epoch: 1, prev: null, removed: [removed.id], reason: 'remove', ...sealed, kept },
      at,
    )
  }

  const before: PlanRecord[] = [
    newBind(room, peers.owner, owner),
    admit(peers.owner, guest, 'Guest 1', true, T0),
    admit(peers.owner, other, 'Guest 2', false, T0 + 1),
    newBind(room, peers.guest, guest),
    newGoal(room, peers.guest, 'Plan a picnic', T0 + 2, 2),
  ]
  const guestsBind = before[3]!
  const guestsGoal = before[4]!
  // the owner held the guest's bind and goal when it removed the guest
  const removal = rekey(peers.owner, guest, [guestsBind.id, guestsGoal.id], T0 + 3)
  const sock = admit(peers.guest, puppet, 'Sock', true, T0 + 5)
  // a forged rekey for the same epoch, by the removed co-owner, with a lower id
  let forged = rekey(peers.guest, other, [], T0 + 6)
  for (let at = T0 + 6; forged.id > removal.id; at++) forged = rekey(peers.guest, other, [], at)
  const after: PlanRecord[] = [
    newGoal(room, peers.guest, 'Mine bitcoin with everyone’s keys', T0 + 4, 2),
    newBind(room, peers.guestTab, guest),
    sock,
    newBind(room, peers.puppet, puppet),
    forged,
  ]
  const records = [...before, removal, ...after]

  const m = deriveMembership(room, owner.id, records)
  const state = new PlanState()
  for (const record of records) state.add(record)
  const plan = derivePlan(state, { membership: m })
  return {
    about:
      '§0.1 rules 3, 4, 5 and 7 (since version 8): the owner removes co-owner guest (epoch 1), keeping its bind and first goal; records.after are what the guest wrote after its removal. expected: the chain, who each PeerId acts for, the epoch that froze it, whether each record counts, and the root goals the plan derives (with their status)',
    room,
    members: { owner: owner.id, guest: guest.id, other: other.id, puppet: puppet.id },
    records: { before, removal, after },
    expected: {
      chain: m.rekeys.map((r) => r.id),
      removed: Object.fromEntries([...m.removed].map(([member, r]) => [member, r.epoch])),
      memberOf: Object.fromEntries(
        Object.values(peers).map((peerId) => [peerId, m.memberOf(peerId) ?? null]),
      ),
      frozen: Object.fromEntries(m.frozen),
      counts: Object.fromEntries(records.map((r) => [r.id, m.counts(r)])),
      roots: plan.roots.map((id) => {
        const goal = plan.goals.get(id)!
        return { id, status: goal.status, authorRemoved: goal.authorRemoved }
      }),
    },
  }
}
