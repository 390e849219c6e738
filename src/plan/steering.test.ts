import { beforeAll, describe, expect, it } from 'vitest'
import { contentId } from '../protocol/hash'
import { MAX_REDOS_PER_LEAF, MAX_VETOES_PER_GOAL } from '../protocol/limits'
import {
  newRedo,
  newSteer,
  newVerdict,
  type GoalRecord,
  type PlanRecord,
  type RedoRecord,
  type VerdictRecord,
} from '../protocol/records'
import { DEFAULT_SWARM, type Swarm } from '../sim/swarm'
import { runSeed } from '../sim/run'
import { derivePlan, type DerivedPlan } from './derive'
import { PlanState } from './state'
import { redoChain, vetoRounds } from './steering'
import { archiveIds } from './archive'
import { projectTree } from './tree'

const MALLORY = '12D3KooWMallory000000000000000000000000000000000000'

let records: PlanRecord[] = []
let root: GoalRecord
let room: string

function stateOf(list: readonly PlanRecord[]): PlanState {
  const state = new PlanState()
  for (const record of list) state.add(record)
  return state
}
const planOf = (list: readonly PlanRecord[]): DerivedPlan => derivePlan(stateOf(list))
function treeOf(list: readonly PlanRecord[]): string {
  const state = stateOf(list)
  return contentId(projectTree(derivePlan(state), state) as unknown as never)
}
/** The same records in reverse: derivation must not depend on arrival. */
const reversed = (list: readonly PlanRecord[]) => [...list].reverse()

beforeAll(() => {
  let sim: Swarm | undefined
  runSeed({ ...DEFAULT_SWARM, seed: 8, onStep: (s) => (sim = s) })
  const observer = sim!.alive().find((peer) => peer.role === 'observer')!
  records = [...observer.state!.plan.records()]
  const plan = planOf(records)
  root = records.find((r): r is GoalRecord => r.kind === 'goal' && r.id === plan.roots[0])!
  room = root.room
  expect(plan.goals.get(root.id)!.status).toBe('done')
})

function firstLeaf(plan: DerivedPlan) {
  return [...plan.leaves.values()].find(({ slot }) => slot.execute?.status === 'done')!
}

describe('redo with guidance', () => {
  it('sends a done leaf back: a new execute task, the old result superseded, roll-ups up to the root redone', () => {
    const before = planOf(records)
    const { slot } = firstLeaf(before)
    const redo = newRedo(room, root.from, slot.execute!.id, 'use metric units', 10)
    const after = planOf([...records, redo])
    const leaf = [...after.leaves.values()].find((l) => l.slot.id === slot.id)!
    expect(leaf.slot.execute!.id).not.toBe(slot.execute!.id)
    expect(leaf.slot.execute!.subject).toBe(redo.id)
    expect(leaf.slot.execute!.status).toBe('open')
    expect(leaf.slot.superseded.map((s) => s.task.result?.output)).toEqual([
      slot.execute!.result!.output,
    ])
    expect(leaf.slot.superseded[0]!.redo.note).toBe('use metric units')
    const rootGoal = after.goals.get(root.id)!
    expect(rootGoal.status).toBe('accepted')
    expect(rootGoal.redos).toEqual([redo.id])
    expect(rootGoal.rollup.id).not.toBe(before.goals.get(root.id)!.rollup.id)
    expect(rootGoal.supersededRollup?.output).toBe(before.goals.get(root.id)!.rollup.result!.output)
    expect(after.rollups.get(rootGoal.rollup.id)?.id).toBe(root.id)
    expect(treeOf(reversed([...records, redo]))).toBe(treeOf([...records, redo]))
  })

  it("counts only the root author's redo, the earliest of two, and a replay changes nothing", () => {
    const { slot } = firstLeaf(planOf(records))
    const task = slot.execute!.id
    expect(treeOf([...records, newRedo(room, MALLORY, task, 'mine now', 1)])).toBe(treeOf(records))
    const first = newRedo(room, root.from, task, 'first', 5)
    const second = newRedo(room, root.from, task, 'second', 6)
    const plan = planOf([...records, second, first, first])
    const leaf = [...plan.leaves.values()].find((l) => l.slot.id === slot.id)!
    expect(leaf.slot.execute!.subject).toBe(first.id)
    expect(treeOf([...records, second, first])).toBe(treeOf([first, ...records, second]))
  })

  it('stops a redo storm after MAX_REDOS_PER_LEAF', () => {
    type T = { id: string; status: string }
    const done = (id: string): T => ({ id, status: 'done' })
    const redos = new Map<string, RedoRecord[]>()
    let task = 'task-0'
    for (let n = 0; n < MAX_REDOS_PER_LEAF + 3; n++) {
      const redo = newRedo(room, root.from, task, `again ${n}`, n)
      redos.set(task, [redo])
      task = redo.id
    }
    const chain = redoChain(done('task-0'), root.from, done, (t) => redos.get(t) ?? [])
    expect(chain.superseded).toHaveLength(MAX_REDOS_PER_LEAF)
  })
})

describe('approval and veto', () => {
  it('holds an accepted split for the author when asked, and an approval lets it run', () => {
    const steer = newSteer(room, root.from, root.id, false, 'root', 2)
    const held = planOf([...records, steer])
    const goal = held.goals.get(root.id)!
    expect(goal.status).toBe('awaiting-approval')
    expect(goal.slots.every((slot) => slot.status === 'approval' && !slot.child)).toBe(true)
    expect(held.goals.size).toBe(1)
    // a member other than the author cannot approve
    const forged = newVerdict(
      room,
      MALLORY,
      { goal: root.id, proposal: goal.accepted!.id, approve: true },
      3,
    )
    expect(planOf([...records, steer, forged]).goals.get(root.id)!.status).toBe('awaiting-approval')
    const approve = newVerdict(
      room,
      root.from,
      { goal: root.id, proposal: goal.accepted!.id, approve: true },
      3,
    )
    const approved = planOf([...records, steer, approve])
    expect(approved.goals.get(root.id)!.status).toBe('done')
    expect(approved.goals.size).toBe(planOf(records).goals.size)
  })

  it('a veto sends the goal back to the decomposers without the splits it lists, with its note', () => {
    const plan = planOf(records)
    const goal = plan.goals.get(root.id)!
    const veto = newVerdict(
      room,
      root.from,
      {
        goal: root.id,
        proposal: goal.accepted!.id,
        approve: false,
        note: 'fewer steps',
        retire: goal.proposals.map((p) => p.id),
      },
      4,
    )
    const after = planOf([...records, veto]).goals.get(root.id)!
    expect(after.accept).toBeNull()
    expect(after.proposals).toEqual([])
    expect(after.status).toBe('awaiting-proposals')
    expect(after.vetoes.map((v) => v.verdict.note)).toEqual(['fewer steps'])
    expect(after.vetoes[0]!.proposal?.id).toBe(goal.accepted!.id)
    expect(treeOf(reversed([...records, veto]))).toBe(treeOf([...records, veto]))
    // the author's first word stands: an approval clicked before the veto wins
    const approve = newVerdict(
      room,
      root.from,
      { goal: root.id, proposal: goal.accepted!.id, approve: true },
      3,
    )
    expect(planOf([...records, veto, approve]).goals.get(root.id)!.status).toBe('done')
    // a member's veto counts for nothing
    const forged: VerdictRecord = newVerdict(
      room,
      MALLORY,
      { goal: root.id, proposal: goal.accepted!.id, approve: false, note: 'no' },
      1,
    )
    expect(treeOf([...records, forged])).toBe(treeOf(records))
  })

  it('counts at most MAX_VETOES_PER_GOAL vetoes', () => {
    const verdicts = Array.from({ length: MAX_VETOES_PER_GOAL + 2 }, (_, n) =>
      newVerdict(room, root.from, { goal: root.id, proposal: `p${n}`, approve: false }, n),
    )
    const rounds = vetoRounds(
      [...verdicts].reverse(),
      root.from,
      () => true,
      (retired) => ({ proposal: `p${retired.size}` }),
    )
    expect(rounds.vetoes).toEqual(verdicts.slice(0, MAX_VETOES_PER_GOAL))
    expect(rounds.accept).toEqual({ proposal: `p${MAX_VETOES_PER_GOAL}` })
    // a veto of a split never accepted counts for nothing
    expect(
      vetoRounds(
        verdicts,
        root.from,
        () => false,
        () => null,
      ).vetoes,
    ).toEqual([])
  })
})

describe('pause', () => {
  it("the author's latest steer counts, whatever the order", () => {
    const pause = newSteer(room, root.from, root.id, true, 'none', 10)
    const resume = newSteer(room, root.from, root.id, false, 'none', 20)
    expect(planOf([...records, pause]).goals.get(root.id)!.paused).toBe(true)
    expect([...planOf([...records, pause]).goals.values()].every((g) => g.paused)).toBe(true)
    expect(planOf([resume, ...records, pause]).goals.get(root.id)!.paused).toBe(false)
    expect(
      planOf([...records, newSteer(room, MALLORY, root.id, true, 'none', 30)]).goals.get(root.id)!
        .paused,
    ).toBe(false)
  })
})

describe('archive', () => {
  it("takes the author's steering and a redo's execute task with the tree", () => {
    const { slot } = firstLeaf(planOf(records))
    const redo = newRedo(room, root.from, slot.execute!.id, 'use metric units', 10)
    const steer = newSteer(room, root.from, root.id, true, 'none', 11)
    const state = stateOf([...records, redo, steer])
    const plan = derivePlan(state)
    const ids = archiveIds(state, [root.id], plan)
    expect(ids.has(redo.id) && ids.has(steer.id)).toBe(true)
    // everything the tree holds goes: the steering, the redo and the renamed roll-ups' keys
    expect([...state.ids()].filter((id) => !ids.has(id))).toEqual([])
  })
})
