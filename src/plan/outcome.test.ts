import { describe, expect, it } from 'vitest'
import { taskId, nodeId } from '../protocol/ids'
import { MAX_TASK_ATTEMPTS } from '../protocol/rules'
import { newGoal, stamp, type FailureRecord, type ReannounceRecord } from '../protocol/records'
import { derivePlan } from './derive'
import { projectTree, type GoalView } from './tree'
import {
  acceptedSplit,
  AUTHOR,
  claimOf,
  EXECUTOR,
  peer,
  ROOM,
  SCORERS,
  taskFailure,
  usage,
  type Split,
} from './split.test-support'

/** The execute task of subgoal `index` of a split whose voters judged it atomic. */
function leafTask(split: Split, index: number): string {
  const text = split.proposal.subgoals[index]!.text
  return taskId('execute', nodeId(split.goal.id, split.proposal.id, index, text, true))
}

/** Run subgoal `index`'s leaf to a result by EXECUTOR. */
function runLeaf(split: Split, index: number): void {
  const task = leafTask(split, index)
  const node = split.proposal.subgoals[index]!.text
  split.plan.add(
    claimOf(EXECUTOR, 'execute', nodeId(split.goal.id, split.proposal.id, index, node, true), 0),
  )
  split.plan.add(split.result(EXECUTOR, task, 0, `output ${index}`))
}

function rollUp(split: Split): void {
  split.plan.add(claimOf(EXECUTOR, 'rollup', split.goal.id, 0))
  split.plan.add(split.result(EXECUTOR, taskId('rollup', split.goal.id), 0, 'the plan'))
}

const root = (split: Split, room: { capabilities: never[] | string[] } | null = null): GoalView =>
  projectTree(derivePlan(split.plan), split.plan, undefined, room as never).goals[0]!

describe("a goal's outcome says whether every part of it was done (issue 43)", () => {
  it("'complete' when every leaf is done", () => {
    const split = acceptedSplit(2)
    runLeaf(split, 0)
    runLeaf(split, 1)
    expect(root(split).outcome).toBeNull() // not rolled up yet
    rollUp(split)
    const goal = root(split)
    expect(goal.status).toBe('done')
    expect(goal.outcome).toBe('complete')
    expect(goal.failedParts).toBe(0)
  })

  it("'partial' with the count when a leaf failed for good", () => {
    const split = acceptedSplit(3)
    const text = split.proposal.subgoals[2]!.text
    const node = nodeId(split.goal.id, split.proposal.id, 2, text, true)
    for (let epoch = 0; epoch < MAX_TASK_ATTEMPTS; epoch++) {
      const executor = peer(`Executor${epoch}`)
      split.plan.add(claimOf(executor, 'execute', node, epoch))
      split.plan.add(taskFailure(executor, leafTask(split, 2), epoch, 'execute'))
    }
    runLeaf(split, 0)
    runLeaf(split, 1)
    rollUp(split)
    const goal = root(split)
    expect(goal.status).toBe('done')
    expect(goal.outcome).toBe('partial')
    expect(goal.failedParts).toBe(1)
    expect(goal.slots[2]!.status).toBe('failed')
  })
})

describe("each goal's usage is its own subtree's (issue 43)", () => {
  it('a new goal starts at zero whatever the room spent before', () => {
    const split = acceptedSplit(2)
    runLeaf(split, 0)
    const second = newGoal(ROOM, AUTHOR, 'Another goal', 2, 3)
    split.plan.add(second)
    const tree = projectTree(derivePlan(split.plan), split.plan)
    const [first, fresh] = tree.goals
    const tokens = (usage: GoalView['usage']) =>
      usage.decomposer.inputTokens + usage.scorer.inputTokens + usage.executor.inputTokens
    expect(fresh!.id).toBe(second.id)
    expect(fresh!.usage.scorer.calls + fresh!.usage.decomposer.calls).toBe(0)
    expect(tokens(fresh!.usage)).toBe(0)
    // the first goal's: its proposal, two votes (which classified its subgoals), one leaf's result
    expect(first!.usage.decomposer.calls).toBe(1)
    expect(first!.usage.scorer.calls).toBe(2)
    expect(first!.usage.executor.calls).toBe(1)
    expect(tokens(tree.roomUsage)).toBe(tokens(first!.usage))
  })

  it("a failed score's tokens count for its goal", () => {
    const split = acceptedSplit(2)
    split.plan.add(
      stamp<FailureRecord>({
        kind: 'failure',
        room: ROOM,
        from: SCORERS[2],
        subject: split.proposal.id,
        stage: 'score',
        epoch: 0,
        index: -1,
        errorKind: 'output',
        detail: "the model's replies did not pass validation",
        usage: usage(100, 4000),
      }),
    )
    const goal = root(split)
    expect(goal.usage.scorer.calls).toBe(3) // two votes and the failed call
    expect(goal.usage.scorer.outputTokens).toBe(20 + 20 + 4000)
  })
})

describe('a call refused before any token is no unpriced call (issue 56)', () => {
  it('counts failed calls apart, and only calls that spent tokens as of unknown price', () => {
    const split = acceptedSplit(2)
    const refused = (from: string, subject: string) =>
      stamp<FailureRecord>({
        kind: 'failure',
        room: ROOM,
        from,
        subject,
        stage: 'execute',
        epoch: 0,
        index: -1,
        errorKind: 'auth',
        detail: 'the LLM provider rejected the API key',
        usage: { ...usage(0, 0), offline: false, model: 'llama3.1:8b' },
      })
    const text = split.proposal.subgoals[0]!.text
    split.plan.add(
      claimOf(EXECUTOR, 'execute', nodeId(split.goal.id, split.proposal.id, 0, text, true), 0),
    )
    split.plan.add(refused(EXECUTOR, leafTask(split, 0)))
    // every model of this room is of unknown price
    const unknownPrice = () => null
    const goal = projectTree(derivePlan(split.plan), split.plan, unknownPrice).goals[0]!
    expect(goal.usage.executor).toMatchObject({ calls: 1, failedCalls: 1, unpricedCalls: 0 })
    // the proposal and the two votes spent tokens: their cost is unknown
    expect(goal.usage.decomposer).toMatchObject({ calls: 1, failedCalls: 0, unpricedCalls: 1 })
    expect(goal.usage.scorer).toMatchObject({ calls: 2, failedCalls: 0, unpricedCalls: 2 })
  })
})

describe('a leaf needing a capability nobody offers is flagged at once (issue 43)', () => {
  function openLeaves() {
    const judged = [
      { atomic: true, capability: 'can_query_api' as const },
      { atomic: true, capability: 'can_write_text' as const },
    ]
    return acceptedSplit(2, 1, [judged, judged])
  }

  it('flags the leaf and the goal from what the room offers, and nothing without a room', () => {
    const split = openLeaves()
    const goal = root(split, { capabilities: ['can_write_text'] })
    expect(goal.slots.map((slot) => slot.capabilityGap)).toEqual([
      { capability: 'can_query_api' },
      null,
    ])
    expect(goal.missingCapabilities).toEqual(['can_query_api'])
    const offered = root(split, { capabilities: ['can_write_text', 'can_query_api'] })
    expect(offered.slots.map((slot) => slot.capabilityGap)).toEqual([null, null])
    expect(root(split).missingCapabilities).toEqual([])
  })

  it('a leaf failed as a capability gap stays flagged while it may still be taken', () => {
    const split = openLeaves()
    const task = leafTask(split, 0)
    const gap = (epoch: number) =>
      stamp<FailureRecord>({
        kind: 'failure',
        room: ROOM,
        from: SCORERS[1],
        subject: task,
        stage: 'capability-gap',
        epoch,
        index: -1,
        errorKind: 'none',
        detail: 'nobody present claimed it',
        usage: null,
      })
    split.plan.add(
      stamp<ReannounceRecord>({
        kind: 'reannounce',
        room: ROOM,
        from: SCORERS[1],
        task,
        epoch: 0,
        at: 1,
      }),
    )
    split.plan.add(gap(0))
    let goal = root(split, { capabilities: ['can_write_text'] })
    expect(goal.slots[0]!.status).toBe('failed')
    expect(goal.slots[0]!.capabilityGap).toEqual({ capability: 'can_query_api' })
    // an executor offering it claims the gap's epoch: the gap no longer counts
    const text = split.proposal.subgoals[0]!.text
    split.plan.add(
      claimOf(EXECUTOR, 'execute', nodeId(split.goal.id, split.proposal.id, 0, text, true), 0),
    )
    goal = root(split, { capabilities: ['can_write_text', 'can_query_api'] })
    expect(goal.slots[0]!.status).toBe('claimed')
    expect(goal.slots[0]!.leaf!.gap).toBeNull()
  })
})
