/**
 * A role whose model is known broken takes no new work until its person
 * fixes it or a later check finds it working (issue 56): before, the core
 * cleared any failure after 30 s and claimed a task with a rejected key
 * every 30 s.
 */
import { describe, expect, it } from 'vitest'
import { PlanState } from '../plan/state'
import { acceptedSplit, peer as peerId } from '../plan/split.test-support'
import type { Presence } from '../protocol/records'
import { HEALTH_RETRY_MS } from './model-health'
import { createPeer, step, type PeerInput } from './index'
import type { LlmOutcome } from './llm-contract'
import { testConfig, T0 } from './leaf.test-support'
import type { ModelVerdict } from './types'

const usage = { provider: 'openai', model: 'm', inputTokens: 0, outputTokens: 0, offline: false }

function failed(errorKind: Extract<LlmOutcome, { ok: false }>['errorKind']): LlmOutcome {
  return {
    ok: false,
    kind: 'execute',
    error: `failed: ${errorKind}`,
    errorKind,
    usage,
    attempts: 1,
  }
}

/** A lone executor of one slot with three open written leaves; `run` steps it `ms` later. */
function loneExecutor() {
  const split = acceptedSplit(3)
  const plan = new PlanState()
  plan.merge(split.plan)
  const peer = createPeer(
    {
      ...testConfig(peerId('Executor'), 'executor', ['can_write_text']),
      capacity: 1,
      offline: false,
    },
    T0,
    plan,
  )
  let now = T0
  const published: { kind: string; at: number; healthy?: boolean }[] = []
  const started: string[] = []
  const run = (inputs: PeerInput[] = [{ type: 'tick' }], ms = 250) => {
    now += ms
    const fx = step(peer, inputs, now)
    for (const record of fx.publish)
      published.push({
        kind: record.kind,
        at: now,
        ...(record.kind === 'presence' ? { healthy: (record as Presence).healthy } : {}),
      })
    started.push(...fx.startLlm.map((request) => request.id))
    return fx
  }
  /** Steps for `ms` of local time, a tick every second. */
  const wait = (ms: number) => {
    for (let t = 0; t < ms; t += 1_000) run([{ type: 'tick' }], 1_000)
  }
  const claims = () => published.filter((r) => r.kind === 'claim').length
  const lastBeat = () => published.filter((r) => r.kind === 'presence').at(-1)
  const answer = (outcome: LlmOutcome, request = started.at(-1)!) =>
    run([{ type: 'llm', requestId: request, outcome }])
  const checked = (verdict: ModelVerdict) =>
    run([{ type: 'command', command: { type: 'model-checked', verdict } }])
  const setModel = () =>
    run([{ type: 'command', command: { type: 'set-model', model: 'openai/m2', offline: false } }])
  return { peer, run, wait, claims, lastBeat, answer, checked, setModel, started }
}

describe('a model known broken takes no new work (issue 56)', () => {
  for (const kind of ['auth', 'not-found', 'unreachable'] as const) {
    it(`after a call failed with '${kind}': no claim however long it waits, and its beats say so`, () => {
      const e = loneExecutor()
      e.wait(3_000)
      expect(e.claims()).toBe(1) // one slot: one leaf at a time
      e.answer(failed(kind), e.started[0])
      expect(e.peer.modelStatus).toMatchObject({ state: 'broken', by: 'call', kind })
      expect(e.peer.healthy).toBe(false)
      e.wait(5 * HEALTH_RETRY_MS)
      // two leaves are still open and its slot is free: it claims neither
      expect(e.claims()).toBe(1)
      expect(e.started).toHaveLength(1)
      expect(e.lastBeat()!.healthy).toBe(false)
    })
  }

  it('a new model resets what is known, and the role claims again at once', () => {
    const e = loneExecutor()
    e.wait(3_000)
    e.answer(failed('auth'), e.started[0])
    e.wait(HEALTH_RETRY_MS * 2)
    const before = e.claims()
    e.setModel()
    e.wait(2_000)
    expect(e.peer.modelStatus.state).toBe('unknown')
    expect(e.peer.healthy).toBe(true)
    expect(e.claims()).toBeGreaterThan(before)
    expect(e.lastBeat()!.healthy).toBe(true)
  })

  it('a check that finds it broken stops new work before any call; a later check that finds it working resumes it', () => {
    const e = loneExecutor()
    e.checked({ ok: false, kind: 'auth', error: 'Wrong API key (401)' })
    e.wait(HEALTH_RETRY_MS * 3)
    expect(e.claims()).toBe(0)
    expect(e.started).toEqual([])
    expect(e.peer.lastError).toBe('Wrong API key (401)')
    e.checked({ ok: true })
    expect(e.peer.modelStatus).toMatchObject({ state: 'works', by: 'check' })
    e.wait(3_000)
    expect(e.claims()).toBe(1)
  })

  it('an answer of the model the person replaced says nothing of the new one', () => {
    const e = loneExecutor()
    e.wait(3_000)
    const old = e.started[0]!
    e.setModel()
    e.answer(failed('auth'), old)
    expect(e.peer.modelStatus.state).toBe('unknown')
    expect(e.peer.healthy).toBe(true)
  })

  it('a rate limit only pauses it: it tries again after HEALTH_RETRY_MS', () => {
    const e = loneExecutor()
    e.wait(3_000)
    e.answer(failed('rate-limit'), e.started[0])
    expect(e.peer.modelStatus.state).toBe('failing')
    expect(e.peer.healthy).toBe(false)
    e.wait(HEALTH_RETRY_MS / 2)
    expect(e.claims()).toBe(1)
    e.wait(HEALTH_RETRY_MS / 2 + 2_000)
    expect(e.peer.healthy).toBe(true)
    expect(e.claims()).toBe(2)
  })

  it('a call that succeeds says the model works', () => {
    const e = loneExecutor()
    e.wait(3_000)
    e.answer({ ok: true, kind: 'execute', value: { output: 'done' }, usage, attempts: 1 })
    expect(e.peer.modelStatus).toMatchObject({ state: 'works', by: 'call' })
  })
})
