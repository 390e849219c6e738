import { describe, expect, it } from 'vitest'
import { stamp, type PlanRecord, type ResultRecord } from '../protocol/records'
import type { Step } from '../protocol/steps'
import { runSeed } from '../sim/run'
import { DEFAULT_SWARM, type Swarm } from '../sim/swarm'
import { derivePlan } from './derive'
import { exportJson } from './export'
import { PlanState } from './state'
import { projectTree, type GoalView, type SlotView } from './tree'

const STEPS: Step[] = [
  {
    type: 'code',
    language: 'javascript',
    code: 'console.log(6 * 7)',
    stdout: '42\n',
    stderr: '',
    exit: 0,
    error: '',
    durationMs: 3,
    timedOut: false,
  },
  { type: 'search', query: 'answer', sources: [{ title: 'A', url: 'https://a.example/' }] },
]

function finishedRun(): PlanRecord[] {
  let sim: Swarm | undefined
  runSeed({ ...DEFAULT_SWARM, seed: 7, onStep: (s) => (sim = s) })
  return [
    ...sim!
      .alive()
      .find((peer) => peer.role === 'observer')!
      .state!.plan.records(),
  ]
}

function leaves(goal: GoalView): SlotView[] {
  return goal.slots.flatMap((slot) => (slot.goal ? leaves(slot.goal) : slot.leaf ? [slot] : []))
}

describe('steps in the plan tree', () => {
  it('a result’s steps reach its leaf as the record has them, and the JSON export', () => {
    const records = finishedRun()
    const state = new PlanState()
    for (const record of records) state.add(record)
    const executeTasks = new Set(derivePlan(state).leaves.keys())
    const result = records.find(
      (r): r is ResultRecord => r.kind === 'result' && executeTasks.has(r.task),
    )!

    // the same result, as an executor that ran code and searched would have written it
    const { id: _id, v: _v, ...draft } = result
    const acted = stamp<ResultRecord>({ ...draft, steps: STEPS })
    const withSteps = new PlanState()
    for (const record of records) if (record.id !== result.id) withSteps.add(record)
    withSteps.add(acted)
    const tree = projectTree(derivePlan(withSteps), withSteps)

    const all = tree.goals.flatMap(leaves)
    expect(all.filter((slot) => slot.leaf!.steps !== null).map((s) => s.leaf!.id)).toEqual([
      result.task,
    ])
    expect(all.find((slot) => slot.leaf!.id === result.task)!.leaf!.steps).toEqual(STEPS)
    const root = tree.goals.find((goal) => leaves(goal).some((s) => s.leaf!.id === result.task))!
    expect(exportJson(tree, root.id)).toContain(JSON.stringify('42\n'))
  })
})
