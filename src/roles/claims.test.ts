import { beforeAll, describe, expect, it } from 'vitest'
import type { LlmOutcome } from '../llm/types'
import { MAX_EPOCH } from '../protocol/limits'
import { newSteer, stamp, type ClaimRecord, type FailureRecord } from '../protocol/records'
import { SYNC_CHECK_TIMEOUT_MS } from '../protocol/rules'
import { deriveTask } from '../plan/tasks'
import { PlanState } from '../plan/state'
import { openLeaf } from '../sim/finished.test-support'
import { createRng } from '../sim/rng'
import { fakePeerId } from '../sim/swarm'
import { createPeer, type Effects } from './index'
import { executorWithRival, startedOn, T0, testConfig } from './leaf.test-support'
import { emit } from './emit'
import { failureFields } from './text'

const rng = createRng('claims-test')
const ALL = ['can_write_text', 'can_run_code', 'can_query_api'] as const

/** Every record of a finished run, less one leaf's claims and results: that leaf is open again. */
let open: { plan: PlanState; task: string }

beforeAll(() => {
  const { plan, task } = openLeaf(7)
  open = { plan, task }
})

/** Executor `me` ranked second for the open leaf, `rival` first; both alive. */
const contested = () => executorWithRival(open, 'second', 'claims-test')
const started = startedOn

describe('a contested claimant checks with its neighbours before it starts', () => {
  it('claims second, asks for a sync round, and waits for it past the claim window', () => {
    const { run, fx } = contested()
    for (let i = 0; i < 24; i++) run() // 6 s: warm-up, stagger, claim window and more
    const claimStep = fx.findIndex((e) => e.publish.some((r) => r.kind === 'claim'))
    expect(claimStep).toBeGreaterThan(0)
    expect(fx[claimStep]!.sync).toBe(true)
    expect(started(fx, open.task)).toBe(false)
    run([{ type: 'synced' }])
    expect(started(fx, open.task)).toBe(true)
  })

  it('does not start when the round brings the better-ranked claim it had missed', () => {
    const { run, fx, rival } = contested()
    for (let i = 0; i < 24; i++) run()
    const mine = fx.flatMap((e) => e.publish).find((r) => r.kind === 'claim') as ClaimRecord
    expect(mine.epoch).toBe(0)
    const theirs = stamp<ClaimRecord>({ ...mine, from: rival, at: T0 } as never)
    run([{ type: 'record', record: theirs }, { type: 'synced' }])
    for (let i = 0; i < 8; i++) run()
    expect(started(fx, open.task)).toBe(false)
  })

  it('starts anyway when its neighbours never answer', () => {
    const { run, fx } = contested()
    for (let i = 0; i < 24; i++) run()
    expect(started(fx, open.task)).toBe(false)
    for (let i = 0; i < SYNC_CHECK_TIMEOUT_MS / 250; i++) run()
    expect(started(fx, open.task)).toBe(true)
  })
})

describe('a paused goal (issue 27)', () => {
  it('gets no claim while its author has it paused, and one once resumed', () => {
    const { run, fx } = contested()
    const root = [...open.plan.roots.values()][0]!
    const pause = newSteer('sim', root.from, root.id, true, 'none', T0)
    const resume = newSteer('sim', root.from, root.id, false, 'none', T0 + 1)
    run([{ type: 'record', record: pause }])
    for (let i = 0; i < 40; i++) run() // 10 s: warm-up, stagger and claim window many times over
    expect(fx.some((e) => e.publish.some((r) => r.kind === 'claim'))).toBe(false)
    run([{ type: 'record', record: resume }])
    for (let i = 0; i < 24; i++) run()
    expect(fx.some((e) => e.publish.some((r) => r.kind === 'claim'))).toBe(true)
  })

  it("ignores a pause by anyone but the goal's author", () => {
    const { run, fx } = contested()
    const root = [...open.plan.roots.values()][0]!
    run([{ type: 'record', record: newSteer('sim', fakePeerId(rng), root.id, true, 'none', T0) }])
    expect(fx.at(-1)!.events).toContainEqual(expect.objectContaining({ type: 'steering-ignored' }))
    for (let i = 0; i < 24; i++) run()
    expect(fx.some((e) => e.publish.some((r) => r.kind === 'claim'))).toBe(true)
  })
})

describe('own records and epochs', () => {
  it('a record that fails the receivers checks is neither kept nor published', () => {
    const peer = createPeer(testConfig(fakePeerId(rng), 'executor', [...ALL]), T0)
    const fx: Effects = { publish: [], startLlm: [], abortLlm: [], events: [], sync: false }
    const record = emit<ClaimRecord>(peer, fx, {
      kind: 'claim',
      task: '0'.repeat(32), // not the task id of its subject
      taskType: 'execute',
      subject: '1'.repeat(32),
      epoch: 0,
      at: T0,
    })
    expect(record).toBeNull()
    expect(fx.publish).toEqual([])
    expect(peer.plan.size).toBe(0)
    expect(fx.events).toContainEqual(expect.objectContaining({ type: 'invalid-record' }))
  })

  it('a task given back at the last epoch is failed: nobody may claim beyond it', () => {
    const plan = new PlanState()
    const from = fakePeerId(rng)
    const subject = '2'.repeat(32)
    const claim = stamp<ClaimRecord>({
      kind: 'claim',
      room: 'r',
      from,
      task: '',
      taskType: 'execute',
      subject,
      epoch: MAX_EPOCH,
      at: T0,
    } as never)
    const task = deriveTask(plan, 'execute', subject).id
    // epochs move one takeover at a time (PROTOCOL §5.10): every step is claimed
    for (let epoch = 0; epoch <= MAX_EPOCH; epoch++) {
      plan.add(stamp<ClaimRecord>({ ...claim, task, epoch } as never))
    }
    plan.add(failure(from, task, MAX_EPOCH, 'output'))
    expect(deriveTask(plan, 'execute', subject).status).toBe('failed')
  })
})

function failure(from: string, task: string, epoch: number, errorKind: FailureRecord['errorKind']) {
  return stamp<FailureRecord>({
    kind: 'failure',
    room: 'r',
    from,
    subject: task,
    stage: 'execute',
    epoch,
    index: -1,
    errorKind,
    detail: 'x',
    usage: null,
  })
}

describe('failures', () => {
  function taskFailedThrice(errorKind: FailureRecord['errorKind']) {
    const plan = new PlanState()
    const subject = '3'.repeat(32)
    const task = deriveTask(plan, 'execute', subject).id
    for (let epoch = 0; epoch < 3; epoch++) {
      const from = fakePeerId(rng)
      plan.add(
        stamp<ClaimRecord>({
          kind: 'claim',
          room: 'r',
          from,
          task,
          taskType: 'execute',
          subject,
          epoch,
          at: T0,
        }),
      )
      plan.add(failure(from, task, epoch, errorKind))
    }
    return deriveTask(plan, 'execute', subject)
  }

  it('three failed attempts fail a task; three wrong keys do not, they only give it back', () => {
    expect(taskFailedThrice('output').status).toBe('failed')
    const auth = taskFailedThrice('auth')
    expect(auth.status).toBe('open')
    expect(auth.failedBy.size).toBe(0)
    expect(auth.failures).toHaveLength(3)
  })

  it('say the error kind and a fixed message, never the provider text', () => {
    const outcome = {
      ok: false,
      kind: 'execute',
      error: 'Incorrect API key provided: sk-proj-abcd****wxyz',
      errorKind: 'auth',
      usage: {
        provider: 'openai',
        model: 'gpt-4o',
        inputTokens: 0,
        outputTokens: 0,
        offline: false,
      },
      attempts: 1,
    } as LlmOutcome
    const fields = failureFields(outcome)
    expect(fields.errorKind).toBe('auth')
    expect(fields.detail).not.toContain('sk-')
    expect(fields.detail).toBe('the LLM provider rejected the API key')
  })
})
