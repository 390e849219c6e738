/**
 * Known answers for steering per member (docs/PROTOCOL.md §5.10, §5.12,
 * since version 7): the owner writes a goal from one PeerId and pauses it
 * from a second PeerId bound to the same member; a guest (another member)
 * tries to resume and to cancel it; then the owner's second PeerId cancels
 * it. Records are spelled out (their `from`s other than the vectors' key
 * have no wire form here: only their binds' member signatures matter);
 * generate.ts puts them under `memberSteering`, member-steering.test.ts
 * checks them by the rule alone.
 */
import { derivePlan } from '../../src/plan/derive'
import { PlanState } from '../../src/plan/state'
import { deriveMemberKey } from '../../src/protocol/member-key'
import { deriveMembership } from '../../src/protocol/membership'
import {
  newAdmit,
  newBind,
  newCancel,
  newGoal,
  newSteer,
  type PlanRecord,
} from '../../src/protocol/records'
import { stableRoomId } from '../../src/protocol/room-key'
import { VECTOR_MEMBER_SEEDS } from './members'

/** After the other vectors' times. */
const T0 = 1_700_000_200_000
const at = (seconds: number) => T0 + seconds * 1_000

/**
 * `owner1` is the vectors' key's PeerId, `owner2` a second PeerId of the
 * owner's member (another tab), `guest` a PeerId of the admitted guest.
 */
export function memberSteeringVectors(
  roomName: string,
  peers: { owner1: string; owner2: string; guest: string },
) {
  const owner = deriveMemberKey(VECTOR_MEMBER_SEEDS.owner)
  const guest = deriveMemberKey(VECTOR_MEMBER_SEEDS.guest)
  const room = stableRoomId(roomName, owner.id)
  const members = [
    newBind(room, peers.owner1, owner),
    newBind(room, peers.owner2, owner),
    newAdmit(
      room,
      peers.owner1,
      { member: guest.id, box: guest.box, name: 'Guest 1', coOwner: false },
      at(0),
    ),
    newBind(room, peers.guest, guest),
  ]
  const goal = newGoal(room, peers.owner1, 'Plan a weekend in Nara', at(1), 2)
  const pause = newSteer(room, peers.owner2, goal.id, true, 'none', at(2))
  // later than the pause: it would resume the goal if it counted
  const guestResume = newSteer(room, peers.guest, goal.id, false, 'none', at(3))
  const guestCancel = newCancel(room, peers.guest, goal.id, at(4), 'not mine to cancel')
  const ownerCancel = newCancel(room, peers.owner2, goal.id, at(5), 'from my other tab')
  const records: PlanRecord[] = [...members, goal, pause, guestResume, guestCancel]
  const outcome = (list: readonly PlanRecord[]) => {
    const state = new PlanState()
    for (const record of list) state.add(record)
    const membership = deriveMembership(room, owner.id, state.memberRecords())
    const derived = derivePlan(state, { membership }).goals.get(goal.id)!
    return { paused: derived.paused, cancelled: derived.cancelled, status: derived.status }
  }
  return {
    about:
      'a cancel, steer, verdict or redo counts when its from and the root goal’s from act for the same member (§5.10); without a membership (before version 7) only when they are equal',
    room,
    owner: owner.id,
    guestMember: guest.id,
    records,
    goal: goal.id,
    counted: [pause.id],
    ignored: [guestResume.id, guestCancel.id],
    outcome: outcome(records),
    ownerCancel,
    afterOwnerCancel: outcome([...records, ownerCancel]),
  }
}
