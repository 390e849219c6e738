/**
 * A scorer's capability-gap notice says why nobody took the task (issue 56):
 * a real gap only when no live executor offers the capability; else the
 * error of the executors that failed it, or that none of them could work.
 */
import { describe, expect, it } from 'vitest'
import { nodeId, taskId } from '../protocol/ids'
import { stamp, type FailureRecord, type PlanRecord } from '../protocol/records'
import { CAPABILITY_GAP_AFTER_MS, REANNOUNCE_AFTER_MS } from '../protocol/rules'
import { PlanState } from '../plan/state'
import { acceptedSplit, claimOf, peer as peerId, ROOM, usage } from '../plan/split.test-support'
import { testBeat } from './beat.test-support'
import { GAP_ALL_FAILED, GAP_NOBODY, GAP_NONE_WORKING } from './gap-reason'
import { createPeer, step } from './index'
import { testConfig, T0 } from './leaf.test-support'

const NOT_FOUND = "the executor's model was not found (404)"

interface Executor {
  id: string
  healthy: boolean
  /** it claimed the leaf and gave it back with this error */
  failed?: string
}

/** One open written leaf, a lone scorer watching it, and `executors` beating all along. */
function watch(executors: Executor[]): FailureRecord | undefined {
  const split = acceptedSplit(1)
  const node = nodeId(split.goal.id, split.proposal.id, 0, split.proposal.subgoals[0]!.text, true)
  const task = taskId('execute', node)
  const plan = new PlanState()
  plan.merge(split.plan)
  executors
    .filter((e) => e.failed)
    .forEach((e, epoch) => {
      plan.add(claimOf(e.id, 'execute', node, epoch))
      plan.add(
        stamp<FailureRecord>({
          kind: 'failure',
          room: ROOM,
          from: e.id,
          subject: task,
          stage: 'execute',
          epoch,
          index: -1,
          errorKind: 'other',
          detail: e.failed!,
          usage: usage(0, 0),
        }),
      )
    })
  const scorer = createPeer(testConfig(peerId('Watcher'), 'scorer'), T0, plan)
  const published: PlanRecord[] = []
  let seq = 0
  const end = REANNOUNCE_AFTER_MS + CAPABILITY_GAP_AFTER_MS + 10_000
  for (let t = 1_000; t <= end; t += 1_000) {
    seq++
    const beats = executors.map((e) => ({
      type: 'presence' as const,
      presence: testBeat({
        from: e.id,
        role: 'executor',
        capabilities: ['can_write_text'],
        healthy: e.healthy,
        seq,
      }),
    }))
    for (const record of step(scorer, [...beats, { type: 'tick' }], T0 + t).publish)
      if (record.kind !== 'presence') published.push(record as PlanRecord)
  }
  return published.find(
    (r): r is FailureRecord => r.kind === 'failure' && r.stage === 'capability-gap',
  )
}

describe("a scorer's capability-gap notice (issue 56)", () => {
  it('is a gap, errorKind none, when no live executor offers the capability', () => {
    expect(watch([])).toMatchObject({ errorKind: 'none', detail: GAP_NOBODY })
  })

  it('names the error when every live executor offering it failed it', () => {
    const gap = watch([
      { id: peerId('ExecA'), healthy: true, failed: "the model's replies did not pass validation" },
      { id: peerId('ExecB'), healthy: true, failed: NOT_FOUND },
    ])
    expect(gap).toMatchObject({ errorKind: 'other', detail: `${GAP_ALL_FAILED}: ${NOT_FOUND}` })
    expect(gap!.detail).not.toContain('capability')
  })

  it('says none could work when the only executor offering it cannot (a broken model)', () => {
    const gap = watch([{ id: peerId('Broken'), healthy: false }])
    expect(gap).toMatchObject({ errorKind: 'other', detail: GAP_NONE_WORKING })
  })
})
