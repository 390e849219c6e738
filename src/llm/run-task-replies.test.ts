/**
 * runLlmTask with real models' habits (issue 44): slips read for what they
 * mean in one attempt, a cut reply asked again with more room, a rate limit
 * or overload waited out without spending the task's attempts, a prompt
 * too long for the model not retried; every leniency and wait in the call log.
 */
import { describe, expect, it } from 'vitest'
import type { LlmCallReport } from './call-report'
import { extractJsonObject } from './json-extract'
import type { GenerateRequest, GenerateResult, LlmProvider } from './provider'
import { MAX_OUTPUT_TOKENS, runLlmTask, type RunTaskOptions } from './run-task'
import { MAX_TOTAL_WAIT_MS } from './wait-policy'
import type { LlmTask } from './types'

const DECOMPOSE: LlmTask = { kind: 'decompose', path: ['Plan a party'], depth: 0, maxDepth: 3 }
const EXECUTE: LlmTask = {
  kind: 'execute',
  path: ['Plan a party'],
  task: 'Book a venue',
  capability: 'can_write_text',
  dependencies: [],
}

type Step = { text: string; finishReason?: string; reasoningChars?: number } | { error: unknown }

/** The AI SDK's APICallError as toLlmError sees it (name + fields). */
function httpError(statusCode: number, body: string, headers: Record<string, string> = {}) {
  return Object.assign(new Error(`HTTP ${statusCode}`), {
    name: 'AI_APICallError',
    statusCode,
    responseBody: body,
    responseHeaders: headers,
    isRetryable: statusCode === 429 || statusCode >= 500,
  })
}

/** A text-mode provider playing a script, recording each request. */
function scripted(steps: Step[]): LlmProvider & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = []
  return {
    id: 'openai-compatible',
    label: 'Local',
    model: 'qwen3:8b',
    offline: false,
    requests,
    toolSupport: () => ({ code: false, search: false }),
    async generate(request): Promise<GenerateResult> {
      requests.push(request)
      const step = steps.shift()
      if (!step) throw new Error('script exhausted')
      if ('error' in step) throw step.error
      return {
        json: extractJsonObject(step.text),
        text: step.text,
        inputTokens: 100,
        outputTokens: 50,
        model: 'qwen3:8b',
        ...(step.finishReason ? { finishReason: step.finishReason } : {}),
        ...(step.reasoningChars ? { reasoningChars: step.reasoningChars } : {}),
      }
    },
  }
}

function run(task: LlmTask, provider: LlmProvider, more: RunTaskOptions = {}) {
  const delays: number[] = []
  const reports: LlmCallReport[] = []
  const out = runLlmTask(task, provider, {
    sleep: async (ms) => void delays.push(ms),
    onCall: (r) => reports.push(r),
    ...more,
  })
  return { out, delays, reports }
}

const subgoals = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ text: `Step ${i + 1}`, dependsOn: [] }))

describe('slips accepted in one attempt, with notes', () => {
  it('seven subgoals in a fence with a trailing comma: the seventh dropped, in one attempt', async () => {
    const body = JSON.stringify({ subgoals: subgoals(7), rationale: 'r' }).replace(/}$/, ',}')
    const provider = scripted([{ text: `Here is my split:\n\`\`\`json\n${body}\n\`\`\`` }])
    const { out, reports } = run(DECOMPOSE, provider)
    const outcome = await out
    expect(outcome).toMatchObject({ ok: true, attempts: 1 })
    expect(outcome.ok && outcome.value).toMatchObject({ subgoals: subgoals(6) })
    expect(reports[0]!.attempts[0]!.notes).toEqual([
      'repaired the JSON (trailing commas, comments, quotes…)',
      'trimmed subgoals from 7 to 6 (dropped the last)',
    ])
  })

  it('a draft inside <think> then the real answer: the real one, first time', async () => {
    const draft = JSON.stringify({ subgoals: [{ text: 'x' }], rationale: 'draft' })
    const real = JSON.stringify({ subgoals: subgoals(3), rationale: 'real' })
    const provider = scripted([{ text: `<think>Draft: ${draft}</think>\n${real}` }])
    const { out, reports } = run(DECOMPOSE, provider)
    expect(await out).toMatchObject({ ok: true, attempts: 1, value: { rationale: 'real' } })
    expect(reports[0]!.attempts[0]!.notes).toEqual([
      `set aside a <think> block (${`<think>Draft: ${draft}</think>`.length} chars)`,
    ])
  })

  it('a plain-Markdown deliverable is the output, not a reason to pay for it twice', async () => {
    const provider = scripted([{ text: '# Venue\n\nThe Oak Room, 7 pm.', reasoningChars: 900 }])
    const { out, reports } = run(EXECUTE, provider)
    expect(await out).toMatchObject({
      ok: true,
      attempts: 1,
      value: { output: '# Venue\n\nThe Oak Room, 7 pm.' },
    })
    expect(provider.requests).toHaveLength(1)
    expect(reports[0]!.attempts[0]!.notes).toEqual([
      "set aside the model's separate reasoning (900 chars; its tokens are counted)",
      'took the plain-text reply as the deliverable (it had no JSON wrapper)',
    ])
  })
})

describe('a reply cut at the token limit', () => {
  it('is asked again with twice the room, up to four times the cap', async () => {
    const cut = { text: '{"subgoals": [{"text": "Step 1", "depe', finishReason: 'length' }
    const whole = { text: JSON.stringify({ subgoals: subgoals(2), rationale: '' }) }
    const provider = scripted([cut, cut, whole])
    const { out, reports } = run(DECOMPOSE, provider)
    expect(await out).toMatchObject({ ok: true, attempts: 3 })
    const base = MAX_OUTPUT_TOKENS.decompose
    expect(provider.requests.map((r) => r.maxOutputTokens)).toEqual([base, 2 * base, 4 * base])
    expect(reports[0]!.attempts.map((a) => a.notes)).toEqual([
      [`reply cut at the token limit; retrying with maxOutputTokens ${2 * base}`],
      [`reply cut at the token limit; retrying with maxOutputTokens ${4 * base}`],
      undefined,
    ])
    // the model is told why, not handed a parse error
    expect(provider.requests[1]!.prompt).toContain('cut off at the token limit')
  })

  it('goes back to the last cap when the model refuses a raised one', async () => {
    const base = MAX_OUTPUT_TOKENS.execute
    const provider = scripted([
      { text: '# Half a page', finishReason: 'length' },
      {
        error: httpError(
          400,
          `{"error":{"message":"max_tokens is too large: ${2 * base}. This model supports at most 16384 completion tokens"}}`,
        ),
      },
      { text: '# A shorter page' },
    ])
    const { out, reports } = run(EXECUTE, provider)
    expect(await out).toMatchObject({
      ok: true,
      attempts: 2,
      value: { output: '# A shorter page' },
    })
    expect(provider.requests.map((r) => r.maxOutputTokens)).toEqual([base, 2 * base, base])
    expect(reports[0]!.attempts[1]!.notes).toEqual([
      `the model refused maxOutputTokens ${2 * base}; back to ${base}`,
    ])
  })
})

describe('rate limits and overloads are the provider’s pace, not the task’s failure', () => {
  const ok = { text: '{"subgoals": [{"text": "A"}, {"text": "B"}], "rationale": ""}' }
  const limited = (body: string, headers: Record<string, string> = {}) => ({
    error: httpError(429, body, headers),
  })

  it('waits out five 429s in a row (3 requests per 10 s) without spending an attempt', async () => {
    const tooFast = limited('{"error":{"message":"Rate limit reached. Please try again in 20s."}}')
    const provider = scripted([tooFast, tooFast, tooFast, tooFast, tooFast, ok])
    const { out, delays, reports } = run(DECOMPOSE, provider)
    expect(await out).toMatchObject({ ok: true, attempts: 1 })
    expect(delays).toEqual([20_000, 20_000, 20_000, 20_000, 20_000])
    expect(reports[0]!.attempts).toHaveLength(6)
    expect(reports[0]!.attempts[0]!.notes).toEqual([
      'waited 20 s: rate limited (body said try again in 20s)',
    ])
  })

  it('honours each back-off signal of a 429', async () => {
    const signals: [Record<string, string>, string, number][] = [
      [{ 'retry-after': '7' }, '', 7_000],
      [{ 'retry-after-ms': '1500' }, '', 1_500],
      [{ 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '6s' }, '', 6_000],
      [{}, 'Please try again in 2.5s.', 2_500],
    ]
    for (const [headers, body, ms] of signals) {
      const { out, delays } = run(DECOMPOSE, scripted([limited(body, headers), ok]))
      expect(await out).toMatchObject({ ok: true, attempts: 1 })
      expect(delays).toEqual([ms])
    }
  })

  it('waits out a 529 overload, backing off when it gives no wait', async () => {
    const busy = { error: httpError(529, '{"type":"error","error":{"type":"overloaded_error"}}') }
    const { out, delays, reports } = run(DECOMPOSE, scripted([busy, busy, ok]), {
      backoffMs: 1_000,
    })
    expect(await out).toMatchObject({ ok: true, attempts: 1 })
    expect(delays).toEqual([1_000, 2_000])
    expect(reports[0]!.attempts[1]!.notes).toEqual([
      'waited 2 s: overloaded (no wait given; backing off)',
    ])
  })

  it('gives up, as a rate limit, once the waits would pass the bound', async () => {
    const long = limited('', { 'retry-after': String((MAX_TOTAL_WAIT_MS / 1_000) * 0.6) })
    const provider = scripted([long, long, ok])
    const { out, delays, reports } = run(DECOMPOSE, provider)
    expect(await out).toMatchObject({ ok: false, errorKind: 'rate-limit', attempts: 1 })
    expect(delays).toEqual([MAX_TOTAL_WAIT_MS * 0.6])
    expect(reports[0]!.attempts[1]!.notes![0]).toMatch(/^gave up: rate limited; waiting 72 s/)
  })

  it('stops waiting when the signal aborts', async () => {
    const controller = new AbortController()
    const provider = scripted([limited('', { 'retry-after': '30' }), ok])
    const pending = runLlmTask(DECOMPOSE, provider, { signal: controller.signal })
    setTimeout(() => controller.abort(), 20)
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
    expect(provider.requests).toHaveLength(1)
  })
})

describe('a prompt too long for the model', () => {
  it('fails at once, said as such, with no retry', async () => {
    const tooLong = {
      error: httpError(
        400,
        '{"error":{"message":"This model\'s maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","code":"context_length_exceeded"}}',
      ),
    }
    const provider = scripted([tooLong, ok()])
    const { out } = run(DECOMPOSE, provider)
    const outcome = await out
    expect(outcome).toMatchObject({ ok: false, errorKind: 'other', attempts: 1 })
    if (!outcome.ok)
      expect(outcome.error).toMatch(/^the prompt does not fit Local's context window/)
    expect(provider.requests).toHaveLength(1)
  })
})

function ok() {
  return { text: '{"subgoals": [{"text": "A"}, {"text": "B"}], "rationale": ""}' }
}
