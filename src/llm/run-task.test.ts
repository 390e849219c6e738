import { describe, expect, it } from 'vitest'
import { LlmAuthError, LlmRateLimitError, LlmUnreachableError } from './errors'
import type { GenerateRequest, GenerateResult, LlmProvider } from './provider'
import { DEFAULT_MAX_ATTEMPTS, runLlmTask } from './run-task'
import { retryText } from './retry-notice'
import type { LlmTask } from './types'

const task: LlmTask = {
  kind: 'score',
  path: ['Plan a party'],
  subgoals: [
    { text: 'Book a venue', dependsOn: [] },
    { text: 'Send the invitations', dependsOn: [0] },
  ],
  rationale: '',
  depth: 1,
  maxDepth: 3,
}

/** A score's judgements of the task's two subgoals. */
const JUDGED = [
  { atomic: true, capability: 'can_write_text' },
  { atomic: false, capability: 'can_query_api' },
]

type Step = { reply: unknown } | { text: string } | { error: Error }

/** A provider that plays a script of replies and errors, and records every request. */
function scripted(steps: Step[]): LlmProvider & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = []
  return {
    id: 'openai',
    label: 'Fake',
    model: 'fake-1',
    offline: false,
    requests,
    toolSupport: () => ({ code: false, search: false }),
    async generate(request): Promise<GenerateResult> {
      requests.push(request)
      const step = steps.shift()
      if (!step) throw new Error('script exhausted')
      if ('error' in step) throw step.error
      const text = 'text' in step ? step.text : JSON.stringify(step.reply)
      return {
        json:
          'text' in step
            ? { ok: false, error: 'no JSON object found in the reply' }
            : { ok: true, value: step.reply },
        text,
        inputTokens: 100,
        outputTokens: 10,
        model: 'fake-1-0001',
      }
    },
  }
}

const noSleep = { sleep: async () => {} }

describe('runLlmTask', () => {
  it('retries with the validation error fed back, then succeeds', async () => {
    const provider = scripted([
      { reply: { score: 7, notes: 'too high', judgements: JUDGED } },
      { text: 'I would rate this highly.' },
      { reply: { score: 0.7, notes: 'good', judgements: JUDGED } },
    ])
    const out = await runLlmTask(task, provider, { backoffMs: 0 })
    expect(out).toEqual({
      ok: true,
      kind: 'score',
      value: { score: 0.7, notes: 'good', judgements: JUDGED },
      attempts: 3,
      usage: {
        provider: 'openai',
        model: 'fake-1-0001',
        inputTokens: 300,
        outputTokens: 30,
        offline: false,
      },
    })
    const [first, second, third] = provider.requests.map((r) => r.prompt)
    expect(first).not.toContain('previous_reply_error')
    expect(second).toMatch(/<previous_reply_error-[a-z0-9]+>\nschema violation: score:/)
    expect(third).toMatch(
      /<previous_reply_error-([a-z0-9]+)>\nno JSON object found in the reply\n<\/previous_reply_error-\1>/,
    )
    expect(provider.requests[0]!.schemaName).toBe('score')
    expect(provider.requests[0]!.task).toBe(task)
  })

  it('gives up after the attempts run out, with the last error and summed usage', async () => {
    const bad = { reply: { score: 2, notes: '', judgements: JUDGED } }
    const provider = scripted([bad, bad, bad, bad])
    const out = await runLlmTask(task, provider, noSleep)
    expect(out.ok).toBe(false)
    if (out.ok) return
    expect(out.attempts).toBe(DEFAULT_MAX_ATTEMPTS)
    expect(out.errorKind).toBe('output')
    expect(out.error).toMatch(/failed validation 3 times: schema violation: score/)
    expect(out.usage.inputTokens).toBe(300)
    expect(provider.requests).toHaveLength(3)
  })

  it('retries transport errors with exponential backoff, and waits out a rate limit as asked', async () => {
    const delays: number[] = []
    const provider = scripted([
      { error: new LlmUnreachableError('cannot reach Fake') },
      { error: new LlmRateLimitError('slow down', 5_000) },
      { reply: { score: 0.9, notes: '', judgements: JUDGED } },
    ])
    const out = await runLlmTask(task, provider, {
      backoffMs: 100,
      sleep: async (ms) => void delays.push(ms),
    })
    expect(out.ok).toBe(true)
    // the rate limit's wait spent no attempt: the failure and the answer did
    expect(out.attempts).toBe(2)
    // First wait: the base; second: the provider's retry-after.
    expect(delays).toEqual([100, 5_000])
    // A transport failure spent no tokens: only the successful call counts.
    expect(out.usage.inputTokens).toBe(100)
  })

  it('tells each wait as it starts, with its real cause and length: 429, 503, 500', async () => {
    // what the AI SDK throws for an HTTP answer (errors.ts reads it as such)
    const http = (statusCode: number, body: string, headers: Record<string, string> = {}) =>
      Object.assign(new Error(`HTTP ${statusCode}`), {
        name: 'AI_APICallError',
        statusCode,
        responseHeaders: headers,
        responseBody: body,
      })
    const provider = scripted([
      { error: http(429, '{"error":{"message":"slow down"}}', { 'retry-after': '14' }) },
      { error: http(503, 'Service Unavailable') },
      { error: http(500, '{"error":{"message":"internal error"}}') },
      { reply: { score: 0.9, notes: '', judgements: JUDGED } },
    ])
    const happened: string[] = []
    const out = await runLlmTask(task, provider, {
      backoffMs: 1_000,
      sleep: async (ms) => void happened.push(`sleep ${ms}`),
      onRetry: (retry) => happened.push(retryText(retry)),
    })
    expect(out.ok).toBe(true)
    expect(happened).toEqual([
      'score: rate limited (429): waiting 14 s (retry-after header: 14)',
      'sleep 14000',
      // a 503 is an overload, not a rate limit; no wait given: the backoff's second step
      'score: provider overloaded (503): waiting 2 s (no wait given; backing off)',
      'sleep 2000',
      'score: server error (500): Fake answered 500: internal error; waiting 1 s, then attempt 2 of 3',
      'sleep 1000',
    ])
  })

  it('does not retry a bad key', async () => {
    const provider = scripted([
      { error: new LlmAuthError('Fake rejected the API key (401)') },
      { reply: { score: 1, notes: '', judgements: JUDGED } },
    ])
    const out = await runLlmTask(task, provider, noSleep)
    expect(out).toMatchObject({ ok: false, errorKind: 'auth', attempts: 1 })
    expect(provider.requests).toHaveLength(1)
  })

  it('reports the kind of the last failure', async () => {
    const down = { error: new LlmUnreachableError('cannot reach Fake (connection refused)') }
    const out = await runLlmTask(task, scripted([down, down, down]), noSleep)
    expect(out).toMatchObject({ ok: false, errorKind: 'unreachable', attempts: 3 })
    if (!out.ok) expect(out.error).toContain('connection refused')
  })

  it('maps unknown thrown errors to "other" and network TypeErrors to "unreachable"', async () => {
    const weird = await runLlmTask(task, scripted([{ error: new Error('boom') }]), noSleep)
    expect(weird).toMatchObject({ ok: false, errorKind: 'other', attempts: 1 })
    const cors = new TypeError('Failed to fetch')
    const blocked = await runLlmTask(
      task,
      scripted([{ error: cors }, { error: cors }, { error: cors }]),
      noSleep,
    )
    expect(blocked).toMatchObject({ ok: false, errorKind: 'unreachable', attempts: 3 })
  })

  it('honours maxAttempts', async () => {
    const bad = { reply: { nope: true } }
    const out = await runLlmTask(task, scripted([bad, bad, bad, bad, bad]), {
      ...noSleep,
      maxAttempts: 5,
    })
    expect(out.attempts).toBe(5)
  })

  it('throws on abort instead of answering', async () => {
    const controller = new AbortController()
    const provider: LlmProvider = {
      id: 'openai',
      label: 'Slow',
      model: 'slow',
      offline: false,
      toolSupport: () => ({ code: false, search: false }),
      generate: (request) =>
        new Promise((_, reject) => {
          request.signal?.addEventListener('abort', () => reject(request.signal?.reason))
        }),
    }
    const pending = runLlmTask(task, provider, { signal: controller.signal })
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('throws on abort during the backoff sleep too', async () => {
    const controller = new AbortController()
    const provider = scripted([
      { reply: { score: 9, notes: '', judgements: JUDGED } },
      { reply: { score: 0.5, notes: '', judgements: JUDGED } },
    ])
    const pending = runLlmTask(task, provider, { signal: controller.signal, backoffMs: 10_000 })
    setTimeout(() => controller.abort(), 20)
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
    expect(provider.requests).toHaveLength(1)
  })
})
