import { describe, expect, it } from 'vitest'
import { RETRY_FAILED_AFTER_MS } from '../protocol/rules'
import { PlanState } from '../plan/state'
import { acceptedSplit, classifyFailure, SCORERS } from '../plan/split.test-support'
import { testBeat } from './beat.test-support'
import { createPeer, step, type Effects, type PeerInput } from './index'
import { testConfig, T0 } from './leaf.test-support'

/** A split whose holder (SCORERS[0]) classified subgoal 0, failed subgoal 1 and so gave the task back. */
function failedPass() {
  const split = acceptedSplit(2)
  split.plan.add(split.node(SCORERS[0], 0, 0))
  split.plan.add(classifyFailure(SCORERS[0], split.decide, 0, 1))
  return split
}

/** `self`, a scorer, with the plan and (optionally) a live fellow scorer's beats. */
function scorer(self: string, records: PlanState, others: string[] = []) {
  const plan = new PlanState()
  plan.merge(records)
  const peer = createPeer(testConfig(self, 'scorer'), T0, plan)
  let now = T0
  let seq = 0
  const fx: Effects[] = []
  const run = (ms = 250) => {
    now += ms
    seq++
    const beats: PeerInput[] = others.map((from) => ({
      type: 'presence',
      presence: testBeat({ from, role: 'scorer', boot: T0, seq }),
    }))
    fx.push(step(peer, [...beats, { type: 'tick' }], now))
    // answer the check's sync rounds at once: the neighbours hold nothing more
    if (fx.at(-1)!.sync) fx.push(step(peer, [{ type: 'synced', answered: true }], now))
  }
  const claims = () =>
    fx.flatMap((e) => e.publish).filter((r) => r.kind === 'claim' && r.taskType === 'decide')
  const calls = () => fx.flatMap((e) => e.startLlm).map((request) => request.task)
  return { peer, run, claims, calls, now: () => now }
}

describe('a subgoal whose classification failed is classified again at the next epoch', () => {
  it('another scorer takes the decide task at once and classifies only the missing subgoal', () => {
    const split = failedPass()
    const other = scorer(SCORERS[1], split.plan, [SCORERS[0]])
    for (let i = 0; i < 60; i++) other.run()
    expect(other.claims().map((c) => (c.kind === 'claim' ? c.epoch : -1))).toEqual([1])
    const classify = other.calls().filter((task) => task.kind === 'classify')
    expect(classify.map((task) => (task.kind === 'classify' ? task.subgoal : ''))).toEqual([
      'part 1',
    ])
    // told what the room's executors offer: none is live here
    expect(classify.map((task) => task.kind === 'classify' && task.roomCapabilities)).toEqual([[]])
  })

  it('the scorer that failed it tries again itself only after a back-off', () => {
    const split = failedPass()
    const failer = scorer(SCORERS[0], split.plan)
    // a little less than the back-off: no claim
    while (failer.now() - T0 < RETRY_FAILED_AFTER_MS - 1_000) failer.run(500)
    expect(failer.claims()).toEqual([])
    while (failer.now() - T0 < RETRY_FAILED_AFTER_MS + 5_000) failer.run(500)
    expect(failer.claims().map((c) => (c.kind === 'claim' ? c.epoch : -1))).toEqual([1])
  })
})
