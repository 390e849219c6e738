import { describe, expect, it } from 'vitest'
import { AUTHOR_QUOTA, MAX_OPEN_GOALS_PER_AUTHOR } from '../protocol/limits'
import { deriveMemberKey, sealEpochSecret, type MemberKey } from '../protocol/member-key'
import { deriveMembership } from '../protocol/membership'
import { AuthorQuota } from '../protocol/quota'
import { newAdmit, newBind, newGoal, newRekey, type PlanRecord } from '../protocol/records'
import { stableRoomId } from '../protocol/room-key'
import { derivePlan, wouldBeHeld } from './derive'
import { PlanState } from './state'

const member = (n: number) => deriveMemberKey(Uint8Array.from({ length: 16 }, (_, i) => n * 16 + i))
const OWNER = member(1)
const ALICE = member(2)
const BOB = member(3)
const ROOM = stableRoomId('trip', OWNER.id)
const peer = (name: string) => `12D3KooW${name.padEnd(44, 'x')}`
const OWNER_PEER = peer('Owner')
const ALICE_PEERS = [1, 2, 3, 4, 5].map((n) => peer(`Alice${n}`))
const BOB_PEER = peer('Bob')
const STRANGER = peer('Stranger')
const T0 = 1_800_000_000_000

const admit = (key: MemberKey, name: string) =>
  newAdmit(ROOM, OWNER_PEER, { member: key.id, box: key.box, name, coOwner: false }, T0)

/** The owner, Alice with five tabs, Bob. */
const members: PlanRecord[] = [
  newBind(ROOM, OWNER_PEER, OWNER),
  admit(ALICE, 'Alice'),
  admit(BOB, 'Bob'),
  ...ALICE_PEERS.map((p) => newBind(ROOM, p, ALICE)),
  newBind(ROOM, BOB_PEER, BOB),
]

function state(records: readonly PlanRecord[], quota?: AuthorQuota): PlanState {
  const plan = new PlanState(quota)
  for (const record of records) plan.add(record)
  return plan
}

const membershipOf = (plan: PlanState) => deriveMembership(ROOM, OWNER.id, plan.memberRecords())
const goal = (from: string, n: number) => newGoal(ROOM, from, `goal ${n}`, T0 + n, 2)

describe('the plan with a membership (members.ts, derivePlan’s option)', () => {
  it('an unbound PeerId’s goal does not appear in the plan; a member’s does', () => {
    const plan = state([...members, goal(STRANGER, 1), goal(BOB_PEER, 2)])
    const derived = derivePlan(plan, { membership: membershipOf(plan) })
    expect(derived.roots).toEqual([goal(BOB_PEER, 2).id])
    expect(derived.held).toEqual([])
    // opt-in: without a membership every record counts, as before
    expect(derivePlan(plan).roots).toHaveLength(2)
  })

  it('the goal appears once its author’s bind arrives', () => {
    const late = peer('Late')
    const plan = state([...members, goal(late, 1)])
    expect(derivePlan(plan, { membership: membershipOf(plan) }).roots).toEqual([])
    plan.add(newBind(ROOM, late, BOB))
    expect(derivePlan(plan, { membership: membershipOf(plan) }).roots).toEqual([goal(late, 1).id])
  })

  it('five PeerIds bound to one member have one member’s goal limits', () => {
    const goals = ALICE_PEERS.map((p, n) => goal(p, n))
    const plan = state([...members, ...goals])
    const membership = membershipOf(plan)
    const derived = derivePlan(plan, { membership })
    expect(derived.roots).toHaveLength(MAX_OPEN_GOALS_PER_AUTHOR)
    expect(derived.held).toHaveLength(goals.length - MAX_OPEN_GOALS_PER_AUTHOR)
    expect(wouldBeHeld(plan, goal(ALICE_PEERS[0]!, 9), { membership })).toBe(true)
    expect(wouldBeHeld(plan, goal(BOB_PEER, 9), { membership })).toBe(false)
    // per PeerId (no membership), each tab had its own limits
    expect(derivePlan(plan).roots).toHaveLength(goals.length)
  })

  it('five PeerIds bound to one member have one member’s record quota', () => {
    const quota = new AuthorQuota({ ...AUTHOR_QUOTA, goal: 2 })
    const goals = ALICE_PEERS.map((p, n) => goal(p, n))
    // the goals first, the binds after: the late binds join the slots and evict
    const plan = state([...goals, ...members], quota)
    const kept = goals
      .filter((g) => plan.has(g.id))
      .map((g) => g.id)
      .sort()
    expect(kept).toEqual(
      goals
        .map((g) => g.id)
        .sort()
        .slice(0, 2),
    )
    expect(plan.has(goal(BOB_PEER, 7).id)).toBe(false)
    expect(plan.add(goal(BOB_PEER, 7))).toBe(true)
  })

  it('a removed member’s goal its removal keeps stays in the plan, stopped; others of it count for nothing', () => {
    const bobs = goal(BOB_PEER, 1)
    const late = goal(BOB_PEER, 9)
    const sealed = sealEpochSecret(ROOM, 1, new Uint8Array(16), [
      { member: OWNER.id, box: OWNER.box },
      { member: ALICE.id, box: ALICE.box },
    ])
    const kept = [newBind(ROOM, BOB_PEER, BOB).id, bobs.id]
    const removal = newRekey(
      ROOM,
      OWNER_PEER,
      { epoch: 1, prev: null, removed: [BOB.id], reason: 'remove', ...sealed, kept },
      T0 + 5,
    )
    const plan = state([...members, bobs, late, removal])
    const membership = membershipOf(plan)
    expect(membership.isActive(BOB.id)).toBe(false)
    const derived = derivePlan(plan, { membership })
    expect(derived.roots).toEqual([bobs.id])
    // its author can no longer read the room: nobody works on it any more
    expect(derived.goals.get(bobs.id)).toMatchObject({ cancelled: true, authorRemoved: true })
    expect(derived.goals.get(bobs.id)!.status).toBe('cancelled')
  })
})
