/**
 * Nothing silently dropped (issues 44, 46): since protocol version 7 a
 * split's subgoals are classified by its voters, so a score that failed is
 * the one call whose failure could leave a split unclassified. The scorer
 * tries it again after a back-off, and its vote (with a judgement of every
 * subgoal) completes the quorum, which classifies every subgoal at once.
 */
import { describe, expect, it } from 'vitest'
import { RETRY_FAILED_AFTER_MS } from '../protocol/rules'
import { stamp, type FailureRecord, type PlanRecord } from '../protocol/records'
import { derivePlan } from '../plan/derive'
import { PlanState } from '../plan/state'
import { acceptedSplit, allAtomic, ROOM, SCORERS, usage } from '../plan/split.test-support'
import { testBeat } from './beat.test-support'
import type { LlmOutcome } from './llm-contract'
import { createPeer, step, type Effects, type PeerInput } from './index'
import { testConfig, T0 } from './leaf.test-support'

/** A goal with one proposal: SCORERS[0] voted; SCORERS[1]'s score call failed. */
function halfScored() {
  const split = acceptedSplit(2)
  const failure = stamp<FailureRecord>({
    kind: 'failure',
    room: ROOM,
    from: SCORERS[1],
    subject: split.proposal.id,
    stage: 'score',
    epoch: 0,
    index: -1,
    errorKind: 'output',
    detail: "the model's replies did not pass validation",
    usage: usage(100, 4000),
  })
  const plan = new PlanState()
  for (const record of [split.goal, split.proposal, split.scores[0]!, failure] as PlanRecord[])
    plan.add(record)
  return { split, plan }
}

/** `self`, a scorer, with the plan and a live fellow scorer's beats. */
function scorer(self: string, records: PlanState, other: string) {
  const plan = new PlanState()
  plan.merge(records)
  const peer = createPeer(testConfig(self, 'scorer'), T0, plan)
  let now = T0
  let seq = 0
  const fx: Effects[] = []
  const run = (inputs: PeerInput[] = [], ms = 500) => {
    now += ms
    seq++
    const beat: PeerInput = {
      type: 'presence',
      presence: testBeat({ from: other, role: 'scorer', boot: T0, seq }),
    }
    fx.push(step(peer, [beat, ...inputs, { type: 'tick' }], now))
    if (fx.at(-1)!.sync) fx.push(step(peer, [{ type: 'synced', answered: true }], now))
  }
  const scoreCalls = () => fx.flatMap((e) => e.startLlm).filter((r) => r.task.kind === 'score')
  return { peer, plan, run, scoreCalls, fx, now: () => now }
}

describe('a score that failed is tried again, so the split is still classified', () => {
  it('the scorer whose call failed scores again after the back-off, judging every subgoal', () => {
    const { split, plan } = halfScored()
    const b = scorer(SCORERS[1], plan, SCORERS[0])
    while (b.now() - T0 < RETRY_FAILED_AFTER_MS - 1_000) b.run()
    expect(b.scoreCalls()).toEqual([])
    while (b.now() - T0 < RETRY_FAILED_AFTER_MS + 2_000 && b.scoreCalls().length === 0) b.run()
    const [call] = b.scoreCalls()
    expect(call?.task).toMatchObject({
      kind: 'score',
      subgoals: split.proposal.subgoals,
      depth: 1,
      maxDepth: 1,
    })
    const outcome: LlmOutcome = {
      ok: true,
      kind: 'score',
      value: { score: 0.8, notes: 'fine', judgements: allAtomic(2, 'can_query_api') },
      usage: usage(50, 20),
      attempts: 1,
    }
    b.run([{ type: 'llm', requestId: call!.id, outcome }])
    const vote = b.fx.flatMap((e) => e.publish).find((r) => r.kind === 'score')
    expect(vote).toMatchObject({
      proposal: split.proposal.id,
      judgements: allAtomic(2, 'can_query_api'),
    })
    // with the quorum in, the decider's accept classifies both subgoals
    for (let i = 0; i < 20 && !b.fx.some((e) => e.publish.some((r) => r.kind === 'accept')); i++)
      b.run()
    const goal = derivePlan(b.peer.plan).goals.get(split.goal.id)!
    expect(goal.accept).not.toBeNull()
    expect(goal.slots.map((slot) => slot.status)).toEqual(['open', 'open'])
    // a tie of two voters (atomic, written; atomic, live data) goes as the better-scoring one judged
    expect(goal.slots.map((slot) => slot.capability)).toEqual(['can_write_text', 'can_write_text'])
  })
})
