/**
 * Steering and cancelling per member (issue 45, PROTOCOL.md §5.10, §5.12):
 * with a membership, a record counts when its author PeerId and the root
 * goal's author act for the same member, so a person steers a goal from any
 * of their tabs and agents; another member's records still count for
 * nothing, and without a membership only the very PeerId counts, as before.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { contentId } from '../protocol/hash'
import { deriveMemberKey } from '../protocol/member-key'
import { deriveMembership } from '../protocol/membership'
import {
  newAdmit,
  newBind,
  newCancel,
  newGoal,
  newRedo,
  newSteer,
  newVerdict,
  type GoalRecord,
  type PlanRecord,
} from '../protocol/records'
import { stableRoomId } from '../protocol/room-key'
import { DEFAULT_SWARM, type Swarm } from '../sim/swarm'
import { runSeed } from '../sim/run'
import { goalAuthors, sameMember, samePeer } from './authority'
import { derivePlan, type DerivedPlan } from './derive'
import type { PlanMembership } from './members'
import { PlanState } from './state'
import { projectTree } from './tree'

const peer = (name: string) => `12D3KooW${name.padEnd(44, 'x')}`
/** the person's second tab: the goal was written in their first (the sim's root author) */
const SECOND_TAB = peer('AliceTab2')
const MALLORY = peer('Mallory')
const UNBOUND = peer('Unbound')

let records: PlanRecord[] = []
let root: GoalRecord
let room: string
/** Alice: the root author's PeerId and SECOND_TAB; Mallory another member; sim peers their own */
let membership: PlanMembership

function stateOf(list: readonly PlanRecord[]): PlanState {
  const state = new PlanState()
  for (const record of list) state.add(record)
  return state
}
/** `null`: derived without a membership, as before version 7 */
const planOf = (list: readonly PlanRecord[], m: PlanMembership | null = membership) =>
  derivePlan(stateOf(list), m ? { membership: m } : {})
const treeOf = (list: readonly PlanRecord[]) => {
  const state = stateOf(list)
  return contentId(projectTree(derivePlan(state, { membership }), state) as unknown as never)
}
const rootOf = (plan: DerivedPlan) => plan.goals.get(root.id)!

beforeAll(() => {
  let sim: Swarm | undefined
  runSeed({ ...DEFAULT_SWARM, seed: 8, onStep: (s) => (sim = s) })
  const observer = sim!.alive().find((p) => p.role === 'observer')!
  records = [...observer.state!.plan.records()]
  const first = derivePlan(stateOf(records))
  root = records.find((r): r is GoalRecord => r.kind === 'goal' && r.id === first.roots[0])!
  room = root.room
  const members = new Map([
    [root.from, 'alice'],
    [SECOND_TAB, 'alice'],
    [MALLORY, 'mallory'],
  ])
  // every sim peer is a member of its own (their records count); UNBOUND acts for nobody
  membership = {
    counts: (r) => r.from !== UNBOUND,
    memberOf: (p) => members.get(p) ?? (p === UNBOUND ? undefined : `member-of-${p}`),
    isActive: () => true,
  }
  expect(rootOf(planOf(records)).status).toBe('done')
})

describe('who acts for a goal’s author (authority.ts)', () => {
  it('samePeer: only the very PeerId; sameMember: any PeerId of the same member', () => {
    expect(samePeer(SECOND_TAB, root.from)).toBe(false)
    expect(samePeer(root.from, root.from)).toBe(true)
    const same = sameMember(membership)
    expect(same(SECOND_TAB, root.from)).toBe(true)
    expect(same(root.from, SECOND_TAB)).toBe(true)
    expect(same(MALLORY, root.from)).toBe(false)
    // two PeerIds bound to nobody are not one author
    const none: PlanMembership = {
      counts: () => true,
      memberOf: () => undefined,
      isActive: () => true,
    }
    expect(sameMember(none)(UNBOUND, peer('Other'))).toBe(false)
    expect(sameMember(none)(UNBOUND, UNBOUND)).toBe(true)
    expect(goalAuthors(undefined).memberOf(root.from)).toBeUndefined()
    expect(goalAuthors(membership).memberOf(SECOND_TAB)).toBe('alice')
  })
})

describe('a person steers their goal from another tab (derivePlan with a membership)', () => {
  it('names the member of the goal’s author', () => {
    expect(rootOf(planOf(records)).createdByMember).toBe('alice')
    expect(rootOf(planOf(records, null)).createdByMember).toBeNull()
  })

  it('a cancel from the second tab cancels; Mallory’s does not; without a membership it does not', () => {
    const cancel = newCancel(room, SECOND_TAB, root.id, 50, 'from my other tab')
    expect(rootOf(planOf([...records, cancel])).status).toBe('cancelled')
    expect(rootOf(planOf([...records, cancel], null)).status).toBe('done')
    const forged = newCancel(room, MALLORY, root.id, 50)
    expect(rootOf(planOf([...records, forged])).status).toBe('done')
    expect(treeOf([cancel, ...records].reverse())).toBe(treeOf([...records, cancel]))
  })

  it('a pause from the second tab pauses, and the person’s latest steer of either tab counts', () => {
    const pause = newSteer(room, SECOND_TAB, root.id, true, 'none', 10)
    expect(rootOf(planOf([...records, pause])).paused).toBe(true)
    expect(rootOf(planOf([...records, pause], null)).paused).toBe(false)
    const resume = newSteer(room, root.from, root.id, false, 'none', 20)
    expect(rootOf(planOf([resume, ...records, pause])).paused).toBe(false)
    expect(rootOf(planOf([pause, ...records, resume])).paused).toBe(false)
    const malloryPause = newSteer(room, MALLORY, root.id, true, 'none', 30)
    expect(rootOf(planOf([...records, malloryPause])).paused).toBe(false)
  })

  it('approval asked in one tab is given in the other; the first click of either tab stands', () => {
    const ask = newSteer(room, root.from, root.id, false, 'root', 2)
    const held = rootOf(planOf([...records, ask]))
    expect(held.status).toBe('awaiting-approval')
    const proposal = held.accepted!.id
    const approve = newVerdict(room, SECOND_TAB, { goal: root.id, proposal, approve: true }, 3)
    expect(rootOf(planOf([...records, ask, approve])).status).toBe('done')
    expect(rootOf(planOf([...records, ask, approve], null)).status).toBe('awaiting-approval')
    const forged = newVerdict(room, MALLORY, { goal: root.id, proposal, approve: true }, 3)
    expect(rootOf(planOf([...records, ask, forged])).status).toBe('awaiting-approval')
    // a veto from the first tab clicked after the second tab's approval loses to it
    const veto = newVerdict(
      room,
      root.from,
      { goal: root.id, proposal, approve: false, retire: held.proposals.map((p) => p.id) },
      4,
    )
    expect(rootOf(planOf([...records, ask, veto, approve])).status).toBe('done')
    expect(treeOf([veto, ...records, approve, ask])).toBe(treeOf([...records, ask, approve, veto]))
    // clicked first, the second tab's veto counts and sends the goal back
    const earlyVeto = newVerdict(
      room,
      SECOND_TAB,
      { goal: root.id, proposal, approve: false, retire: held.proposals.map((p) => p.id) },
      1,
    )
    const vetoed = rootOf(planOf([...records, ask, earlyVeto, approve]))
    expect(vetoed.vetoes.map((v) => v.verdict.id)).toEqual([earlyVeto.id])
    expect(vetoed.accept).toBeNull()
  })

  it('a leaf is sent back from the second tab; Mallory’s redo changes nothing', () => {
    const leaf = [...planOf(records).leaves.values()].find(
      (l) => l.slot.execute?.status === 'done',
    )!
    const task = leaf.slot.execute!.id
    const redo = newRedo(room, SECOND_TAB, task, 'in metric units', 10)
    const after = [...planOf([...records, redo]).leaves.values()].find(
      (l) => l.slot.id === leaf.slot.id,
    )!
    expect(after.slot.execute!.subject).toBe(redo.id)
    expect(after.slot.superseded.map((s) => s.redo.id)).toEqual([redo.id])
    const unchanged = [...planOf([...records, redo], null).leaves.values()].find(
      (l) => l.slot.id === leaf.slot.id,
    )!
    expect(unchanged.slot.execute!.id).toBe(task)
    const forged = newRedo(room, MALLORY, task, 'mine now', 5)
    expect(treeOf([...records, forged])).toBe(treeOf(records))
  })
})

describe('with a real membership (binds signed by the member key)', () => {
  const key = (n: number) => deriveMemberKey(Uint8Array.from({ length: 16 }, (_, i) => n * 16 + i))
  const OWNER = key(1)
  const ALICE = key(2)
  const BOB = key(3)
  const ROOM = stableRoomId('trip', OWNER.id)
  const OWNER_PEER = peer('Owner')
  const [TAB1, TAB2, AGENT] = [peer('Tab1'), peer('Tab2'), peer('Agent')]
  const BOB_PEER = peer('Bob')
  const T0 = 1_800_000_000_000
  const admit = (member: typeof ALICE, name: string) =>
    newAdmit(ROOM, OWNER_PEER, { member: member.id, box: member.box, name, coOwner: false }, T0)

  it('a goal written in one tab is cancelled from the person’s agent, not from Bob’s tab', () => {
    const members: PlanRecord[] = [
      newBind(ROOM, OWNER_PEER, OWNER),
      admit(ALICE, 'Alice'),
      admit(BOB, 'Bob'),
      newBind(ROOM, TAB1, ALICE),
      newBind(ROOM, TAB2, ALICE),
      newBind(ROOM, AGENT, ALICE),
      newBind(ROOM, BOB_PEER, BOB),
    ]
    const goal = newGoal(ROOM, TAB1, 'plan a trip', T0 + 1, 2)
    const derive = (extra: PlanRecord[]) => {
      const state = stateOf([...members, goal, ...extra])
      const m = deriveMembership(ROOM, OWNER.id, state.memberRecords())
      return derivePlan(state, { membership: m }).goals.get(goal.id)!
    }
    expect(derive([]).createdByMember).toBe(ALICE.id)
    expect(derive([newCancel(ROOM, BOB_PEER, goal.id, T0 + 2)]).cancelled).toBe(false)
    expect(derive([newCancel(ROOM, AGENT, goal.id, T0 + 2)]).cancelled).toBe(true)
    expect(derive([newSteer(ROOM, TAB2, goal.id, true, 'none', T0 + 2)]).paused).toBe(true)
    expect(derive([newSteer(ROOM, BOB_PEER, goal.id, true, 'none', T0 + 2)]).paused).toBe(false)
  })
})
