/** What a role's activity says is true (issue 43): running times, and "works again" only after a success. */
import { describe, expect, it } from 'vitest'
import { createPeer } from '../roles/peer'
import { ActivityLog, healthEntry } from './activity'
import type { LlmOutcome } from '../roles/llm-contract'

const MODEL = { provider: 'openai-compatible', model: 'm' } as const

function executor(now: number) {
  return createPeer(
    {
      peerId: 'peer-a',
      room: 'r',
      role: 'executor',
      capabilities: ['can_write_text'],
      capacity: 1,
      model: 'openai-compatible/m',
      offline: false,
    },
    now,
  )
}

const usage = {
  provider: 'openai-compatible',
  model: 'm',
  inputTokens: 10,
  outputTokens: 5,
  offline: false,
}
const failed: LlmOutcome = {
  ok: false,
  kind: 'execute',
  error: 'unreachable',
  errorKind: 'unreachable',
  usage,
  attempts: 1,
}
const succeeded: LlmOutcome = {
  ok: true,
  kind: 'execute',
  value: { output: 'done' },
  usage,
  attempts: 1,
}

describe('health in words', () => {
  const works = { state: 'works', by: 'call', error: null, kind: null } as const
  const failing = { state: 'failing', by: 'call', error: '429', kind: 'rate-limit' } as const
  it('says the provider works again only after a call succeeded', () => {
    expect(healthEntry({ healthy: true }, works)).toEqual({
      text: 'LLM provider works again',
      tone: 'good',
    })
    // the core's retry timer cleared the failure; no call has succeeded since
    const retry = healthEntry({ healthy: true }, failing)
    expect(retry.text).not.toMatch(/works/)
    expect(retry.text).toMatch(/not known to work yet/)
    expect(retry.tone).toBe('warn')
    expect(healthEntry({ healthy: false, error: 'bad key' }, failing)).toEqual({
      text: 'LLM provider failing: bad key',
      tone: 'bad',
    })
  })

  it('says a broken model takes no work until it works (issue 56)', () => {
    const broken = { state: 'broken', by: 'call', error: 'bad key', kind: 'auth' } as const
    const entry = healthEntry({ healthy: false, error: 'bad key', broken: true }, broken)
    expect(entry.tone).toBe('bad')
    expect(entry.text).toMatch(/^Model not working: bad key\. No new work until it does/)
  })

  it('the activity log follows the calls', () => {
    const peer = executor(0)
    const log = new ActivityLog(peer)
    expect(log.snapshot(MODEL, 0).modelStatus.state).toBe('unknown')
    peer.modelStatus = { state: 'failing', by: 'call', error: 'slow down', kind: 'rate-limit' }
    log.usage(failed)
    log.record([{ type: 'health', healthy: false, error: 'slow down' }], [], 1_000)
    log.record([{ type: 'health', healthy: true }], [], 31_000)
    expect(log.snapshot(MODEL, 31_000).recent[0]!.text).toMatch(/not known to work yet/)
    expect(log.snapshot(MODEL, 31_000).modelStatus.state).toBe('failing')
    expect(log.snapshot(MODEL, 31_000).llm.failedCalls).toBe(1)
    peer.modelStatus = { state: 'works', by: 'call', error: null, kind: null }
    log.usage(succeeded)
    log.record([{ type: 'health', healthy: true }], [], 40_000)
    expect(log.snapshot(MODEL, 40_000).recent[0]!.text).toBe('LLM provider works again')
    expect(log.snapshot(MODEL, 40_000).modelStatus.state).toBe('works')
  })
})

describe('running time of work', () => {
  it('counts from the call’s start, not from the tab’s start or the claim', () => {
    const peer = executor(0)
    const log = new ActivityLog(peer)
    // a designated claim has no claim time (since -Infinity); its call starts at 120 s
    peer.work.set('w1', {
      requestId: 'w1',
      kind: 'execute',
      subject: 's',
      task: 't',
      epoch: 0,
      since: -Infinity,
      started: true,
      llm: null,
    })
    log.record([{ type: 'llm-started', request: 'w1', kind: 'execute' }], [], 120_000)
    const [item] = log.snapshot(MODEL, 311_000).work
    expect(item!.since).toBe(120_000)
    // a claim still in its window: its own time
    peer.work.set('w2', {
      requestId: 'w2',
      kind: 'execute',
      subject: 's2',
      task: 't2',
      epoch: 0,
      since: 300_000,
      started: false,
      llm: null,
    })
    expect(log.snapshot(MODEL, 311_000).work.find((w) => w.id === 'w2')!.since).toBe(300_000)
  })
})
