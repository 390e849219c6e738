import { beforeAll, describe, expect, it } from 'vitest'
import type { LlmOutcome } from '../llm/types'
import { stamp, type ClaimRecord } from '../protocol/records'
import {
  LAPSED_OUTPUT_WAIT_MS,
  LEASE_TIMEOUT_MS,
  PRESENCE_INTERVAL_MS,
  SYNC_CHECK_TIMEOUT_MS,
} from '../protocol/rules'
import { PlanState } from '../plan/state'
import { openLeaf } from '../sim/finished.test-support'
import type { Effects, PeerInput } from './index'
import { executorWithRival, startedOn } from './leaf.test-support'

/** frozen this long: well past a lease */
const AWAY_MS = LEASE_TIMEOUT_MS + 5_000

let open: { plan: PlanState; task: string }

beforeAll(() => {
  open = openLeaf(11)
})

function answer(requestId: string): PeerInput {
  const outcome = {
    ok: true,
    kind: 'execute',
    value: { output: 'the answer, written before the freeze' },
    usage: { provider: 'mock', model: 'm', inputTokens: 1, outputTokens: 1, offline: true },
    attempts: 1,
  } as LlmOutcome
  return { type: 'llm', requestId, outcome }
}

const started = (fx: Effects[]) => startedOn(fx, open.task)

/** An executor and its live rival, ranked for the open leaf as `me` says; `freeze` jumps past a lease. */
function harness(me: 'first' | 'second') {
  const setup = executorWithRival(open, me, 'lapse-test')
  return { ...setup, freeze: () => setup.freeze(AWAY_MS) }
}

/** Executor `me`, second choice for the open leaf, not at work yet; its rival alive but silent about the leaf. */
const secondChoice = () => harness('second')

/** Executor `me`, first choice for the open leaf, at work on it; `rival` alive and ranked second. */
function atWork() {
  const { peer, rival, run, fx, freeze } = harness('first')
  for (let i = 0; i < 12 && !started(fx); i++) run()
  const request = fx.flatMap((e) => e.startLlm).find((r) => r.id.includes(open.task))
  if (!request) throw new Error('the first choice never started the leaf')
  const claim = fx.flatMap((e) => e.publish).find((r) => r.kind === 'claim') as ClaimRecord
  /** the rival's takeover of the leaf, one epoch up, as it would arrive by sync */
  const takeover = stamp<ClaimRecord>({
    ...claim,
    from: rival,
    epoch: claim.epoch + 1,
    at: claim.at + LEASE_TIMEOUT_MS,
  } as never)
  return { peer, run, fx, request: request.id, takeover, freeze }
}

const results = (fx: Effects[]) => fx.flatMap((e) => e.publish).filter((r) => r.kind === 'result')

describe('a holder away longer than a lease (lapse.ts)', () => {
  it('publishes at once when it was not away', () => {
    const { run, fx, request } = atWork()
    run([answer(request)])
    expect(results(fx)).toHaveLength(1)
  })

  it('holds its answer and drops it when the round brings its successor’s claim', () => {
    const { run, fx, request, takeover, freeze } = atWork()
    freeze()
    const thaw = run([answer(request)])
    expect(results(fx)).toHaveLength(0)
    expect(thaw.sync).toBe(true) // asks its neighbours what happened meanwhile
    expect(thaw.events.some((e) => e.type === 'was-away')).toBe(true)
    run([
      { type: 'record', record: takeover },
      { type: 'synced', answered: true },
    ])
    for (let i = 0; i < (LAPSED_OUTPUT_WAIT_MS + 5_000) / 250; i++) run()
    expect(results(fx)).toHaveLength(0)
  })

  it('publishes its answer once a neighbour answered and nobody took the task over', () => {
    const { run, fx, request, freeze } = atWork()
    freeze()
    run([answer(request)])
    run([{ type: 'synced', answered: false }]) // links not back yet: nobody answered
    expect(results(fx)).toHaveLength(0)
    expect(run([{ type: 'tick' }], 2_000).sync).toBe(true) // so it asks again
    expect(results(fx)).toHaveLength(0)
    run([{ type: 'synced', answered: true }])
    expect(results(fx)).toHaveLength(1)
  })

  it('asks again when the round it asked for at the thaw never ends', () => {
    const { run, fx, request, freeze } = atWork()
    freeze()
    expect(run([answer(request)]).sync).toBe(true)
    let again = -1
    for (let i = 1; i <= SYNC_CHECK_TIMEOUT_MS / 250 + 12 && again < 0; i++) {
      if (run().sync) again = i * 250
    }
    expect(again).toBeGreaterThanOrEqual(SYNC_CHECK_TIMEOUT_MS)
    run([{ type: 'synced', answered: true }])
    expect(results(fx)).toHaveLength(1)
  })

  it('claims nothing new until a neighbour answered, then waits a beat’s gap to hear who is alive', () => {
    const { run, fx, freeze } = harness('first')
    run()
    run() // 0.5 s: still warming up, nothing claimed yet
    freeze()
    const claimed = () => fx.some((e) => e.publish.some((r) => r.kind === 'claim'))
    const thaw = run()
    expect(thaw.events.some((e) => e.type === 'was-away')).toBe(true)
    expect(thaw.sync).toBe(true)
    for (let i = 0; i < 12; i++) run()
    run([{ type: 'synced', answered: false }])
    for (let i = 0; i < 12; i++) run()
    expect(claimed()).toBe(false)
    run([{ type: 'synced', answered: true }])
    for (let i = 0; i < PRESENCE_INTERVAL_MS / 250 - 2; i++) run()
    expect(claimed()).toBe(false)
    for (let i = 0; i < 4; i++) run()
    expect(claimed()).toBe(true)
  })

  it('alone, publishes after LAPSED_OUTPUT_WAIT_MS and not before', () => {
    const { run, fx, request, freeze } = atWork()
    freeze()
    let asked = run([answer(request)]).sync
    let elapsed = 250
    const unanswered = () => {
      asked = run(asked ? [{ type: 'synced', answered: false }] : undefined).sync
      elapsed += 250
    }
    while (elapsed < LAPSED_OUTPUT_WAIT_MS - 500) unanswered()
    expect(results(fx)).toHaveLength(0)
    for (let i = 0; i < 4; i++) unanswered()
    expect(results(fx)).toHaveLength(1)
  })

  it('a claim not started when it went away starts only on a round a neighbour answered', () => {
    const { run, fx, freeze } = secondChoice()
    for (let i = 0; i < 24 && !fx.some((e) => e.publish.some((r) => r.kind === 'claim')); i++) {
      run()
    }
    expect(fx.some((e) => e.publish.some((r) => r.kind === 'claim'))).toBe(true)
    expect(started(fx)).toBe(false)
    freeze() // mid claim window, before its check
    expect(run().sync).toBe(true)
    run([{ type: 'synced', answered: false }]) // no link up yet: the round tells nothing
    for (let i = 0; i < 4; i++) run()
    expect(started(fx)).toBe(false)
    for (let i = 0; i < 8; i++) run() // it asks again
    run([{ type: 'synced', answered: true }])
    expect(started(fx)).toBe(true)
  })
})
