import { describe, expect, it } from 'vitest'
import { nodeId, taskId } from '../protocol/ids'
import { stamp, type FailureRecord, type ReannounceRecord } from '../protocol/records'
import { PlanState } from '../plan/state'
import {
  acceptedSplit,
  claimOf,
  EXECUTOR,
  peer as peerId,
  ROOM,
  SCORERS,
} from '../plan/split.test-support'
import { createPeer, step, type Effects } from './index'
import { testConfig, T0 } from './leaf.test-support'

/**
 * Subgoal 0 (needs can_query_api) failed as a capability gap; subgoal 1 (text)
 * is being written by EXECUTOR, so the goal has not rolled up.
 */
function gapInProgress() {
  const judged = [
    { atomic: true, capability: 'can_query_api' as const },
    { atomic: true, capability: 'can_write_text' as const },
  ]
  const split = acceptedSplit(2, 1, [judged, judged])
  const leaf = (index: number) =>
    nodeId(split.goal.id, split.proposal.id, index, split.proposal.subgoals[index]!.text, true)
  const task = taskId('execute', leaf(0))
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
  split.plan.add(
    stamp<FailureRecord>({
      kind: 'failure',
      room: ROOM,
      from: SCORERS[1],
      subject: task,
      stage: 'capability-gap',
      epoch: 0,
      index: -1,
      errorKind: 'none',
      detail: 'nobody present claimed it',
      usage: null,
    }),
  )
  split.plan.add(claimOf(EXECUTOR, 'execute', leaf(1), 0))
  return { split, task }
}

/** A newcomer executor that searches the web, alone with `records`, for `steps` steps. */
function newcomer(records: PlanState, steps = 20) {
  const plan = new PlanState()
  plan.merge(records)
  const self = peerId('Searcher')
  const peer = createPeer(
    testConfig(self, 'executor', ['can_query_api', 'can_write_text']),
    T0,
    plan,
  )
  const fx: Effects[] = []
  for (let i = 1; i <= steps; i++) fx.push(step(peer, [{ type: 'tick' }], T0 + i * 250))
  return fx.flatMap((e) => e.publish).filter((r) => r.kind === 'claim')
}

describe('a leaf failed as a capability gap can still be taken (issue 43)', () => {
  it('by an executor offering the capability that comes later, while the goal is not rolled up', () => {
    const { split, task } = gapInProgress()
    const claims = newcomer(split.plan)
    expect(claims.map((c) => (c.kind === 'claim' ? [c.task, c.epoch] : null))).toEqual([[task, 0]])
  })

  it('not once the roll-up has been claimed: the plan was written without it', () => {
    const { split } = gapInProgress()
    split.plan.add(claimOf(EXECUTOR, 'rollup', split.goal.id, 0))
    expect(newcomer(split.plan)).toEqual([])
  })
})
