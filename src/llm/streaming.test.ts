/**
 * Streamed calls (issue 27): the real provider code (AI SDK streamText) against
 * the mock LLM's server-sent events, for Anthropic, OpenAI and OpenAI-compatible
 * servers. The text arrives in order, piece by piece, before the call ends; the
 * whole reply is validated at the end as an unstreamed one is; and the call
 * report holds exactly the request the mock got and the reply it sent.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  createMockLlmServer,
  type MockLlmServer,
  type MockRequestLog,
} from '../../test/mock-llm/server'
import { parseAnthropic, parseOpenAi } from '../../test/mock-llm/wire'
import type { LlmCallReport } from './call-report'
import { createOfflineProvider, OFFLINE_STREAM_PIECES } from './offline'
import { createProvider } from './provider'
import { runLlmTask } from './run-task'
import type { LlmTask, ModelConfig } from './types'

const KEY = 'sk-test-good'
let mock: MockLlmServer

beforeAll(async () => {
  mock = await createMockLlmServer({ keys: [KEY] })
})
afterAll(async () => {
  await mock.close()
})
beforeEach(() => {
  mock.requests.length = 0
  mock.setBehaviour({ latencyMs: 0, structuredOutput: 'follow' })
})

const root = 'Plan a weekend in Lisbon'
const EXECUTE: LlmTask = {
  kind: 'execute',
  path: [root],
  task: 'List three museums worth a visit',
  capability: 'can_write_text',
  dependencies: [],
}
const ROLLUP: LlmTask = {
  kind: 'rollup',
  path: [root],
  parts: [
    { text: 'Museums', output: '## Museums\nGulbenkian' },
    { text: 'Food', output: 'Pastéis de nata' },
  ],
}
const DECOMPOSE: LlmTask = { kind: 'decompose', path: [root], depth: 0, maxDepth: 2 }

const CONFIGS: { name: string; config: () => ModelConfig }[] = [
  {
    name: 'Anthropic (output_config)',
    config: () => ({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      apiKey: KEY,
      baseUrl: `${mock.url}/v1`,
    }),
  },
  {
    name: 'Anthropic (forced json tool)',
    config: () => ({
      provider: 'anthropic',
      model: 'claude-3-haiku-20240307',
      apiKey: KEY,
      baseUrl: `${mock.url}/v1`,
    }),
  },
  {
    name: 'OpenAI Chat Completions',
    config: () => ({
      provider: 'openai',
      model: 'gpt-4o-mini',
      apiKey: KEY,
      baseUrl: `${mock.url}/v1`,
    }),
  },
  {
    name: 'OpenAI-compatible (JSON in text)',
    config: () => ({
      provider: 'openai-compatible',
      model: 'llama3.1:8b',
      apiKey: KEY,
      baseUrl: `${mock.url}/v1`,
    }),
  },
]

/** The system prompt and user prompt the mock received. */
function seen(request: MockRequestLog): { system: string; prompt: string } {
  const body = request.body as Record<string, unknown>
  return request.api === 'anthropic' ? parseAnthropic(body) : parseOpenAi(body)
}

interface Run {
  deltas: { delta: string; attempt: number }[]
  reports: LlmCallReport[]
}

function recorder(): Run & { options: Parameters<typeof runLlmTask>[2] } {
  const run: Run = { deltas: [], reports: [] }
  return {
    ...run,
    options: {
      backoffMs: 0,
      onText: (delta, attempt) => run.deltas.push({ delta, attempt }),
      onCall: (report) => run.reports.push(report),
    },
  }
}

describe.each(CONFIGS)('$name, streamed', ({ config }) => {
  it.each([EXECUTE, ROLLUP].map((t) => [t.kind, t] as const))(
    'streams a %s reply in order, validates it whole, and logs the exact exchange',
    async (_kind, task) => {
      const run = recorder()
      const out = await runLlmTask(task, createProvider(config()), run.options)
      expect(out.ok, out.ok ? '' : out.error).toBe(true)
      expect(mock.requests).toHaveLength(1)
      const request = mock.requests[0]!
      expect(request).toMatchObject({ status: 200, streamed: true, taskKind: task.kind })
      expect((request.body as { stream?: boolean }).stream).toBe(true)
      expect(run.deltas.length).toBeGreaterThan(2)
      expect(run.deltas.every((d) => d.attempt === 1)).toBe(true)
      expect(run.deltas.map((d) => d.delta).join('')).toBe(request.replyText)
      // the inspector's record: the request the mock got and the reply it streamed, byte for byte
      const [report] = run.reports
      expect(report!.system).toBe(seen(request).system)
      expect(report!.attempts).toHaveLength(1)
      expect(report!.attempts[0]!.prompt).toBe(seen(request).prompt)
      expect(report!.attempts[0]!.reply).toBe(request.replyText)
      expect(report!.attempts[0]!.output).toEqual(out.ok ? out.value : null)
      expect(report!.outputTokens).toBeGreaterThan(0)
    },
  )

  it('shows text before the call ends (the mock holds the stream midway)', async () => {
    const release = mock.holdStream()
    const run = recorder()
    let settled = false
    const call = runLlmTask(EXECUTE, createProvider(config()), run.options).finally(
      () => (settled = true),
    )
    await expect.poll(() => run.deltas.length, { timeout: 5_000 }).toBeGreaterThan(0)
    expect(settled).toBe(false)
    const early = run.deltas.map((d) => d.delta).join('')
    release()
    const out = await call
    expect(out.ok).toBe(true)
    expect(mock.requests[0]!.replyText!.startsWith(early)).toBe(true)
    expect(early.length).toBeLessThan(mock.requests[0]!.replyText!.length)
  })

  it('retries a streamed reply that breaks the schema; the retry streams as attempt 2', async () => {
    mock.failNext(1, 'schema-violation')
    const run = recorder()
    const out = await runLlmTask(EXECUTE, createProvider(config()), run.options)
    expect(out).toMatchObject({ ok: true, attempts: 2 })
    expect(new Set(run.deltas.map((d) => d.attempt))).toEqual(new Set([1, 2]))
    const second = run.deltas
      .filter((d) => d.attempt === 2)
      .map((d) => d.delta)
      .join('')
    expect(second).toBe(mock.requests[1]!.replyText)
    expect(run.reports[0]!.attempts[0]!.error).toBeDefined()
  })

  it('waits out a 429 on a streamed request, and reports a bad key at once', async () => {
    mock.failNext(1, 'rate-limit')
    const delays: number[] = []
    const run = recorder()
    const out = await runLlmTask(EXECUTE, createProvider(config()), {
      ...run.options,
      sleep: async (ms) => void delays.push(ms),
    })
    // the wait is the provider's pace: no attempt spent
    expect(out).toMatchObject({ ok: true, attempts: 1 })
    expect(delays).toEqual([1_000])
    const bad = await runLlmTask(EXECUTE, createProvider({ ...config(), apiKey: 'sk-wrong' }), {
      ...recorder().options,
    })
    expect(bad).toMatchObject({ ok: false, errorKind: 'auth', attempts: 1 })
  })
})

describe('what is streamed, and the system prompt as sent', () => {
  const compatible = (): ModelConfig => ({
    provider: 'openai-compatible',
    model: 'llama3.1:8b',
    apiKey: KEY,
    baseUrl: `${mock.url}/v1`,
  })

  it('does not stream decompose calls, even with onText', async () => {
    const run = recorder()
    const out = await runLlmTask(DECOMPOSE, createProvider(compatible()), run.options)
    expect(out.ok).toBe(true)
    expect(mock.requests[0]!.streamed).toBeUndefined()
    expect(run.deltas).toEqual([])
  })

  it('logs the text-mode system prompt (schema added) exactly as the server got it', async () => {
    const run = recorder()
    await runLlmTask(DECOMPOSE, createProvider(compatible()), run.options)
    const { system } = seen(mock.requests[0]!)
    expect(system).toContain('matching this JSON Schema')
    expect(run.reports[0]!.system).toBe(system)
  })

  it('after a switch to text mode, logs the system prompt of the requests that answered', async () => {
    mock.setBehaviour({ structuredOutput: 'reject' })
    mock.failNext(1, 'invalid-json')
    const run = recorder()
    const provider = createProvider({
      provider: 'openai',
      model: 'gpt-4o-mini',
      apiKey: KEY,
      baseUrl: `${mock.url}/v1`,
    })
    const out = await runLlmTask(EXECUTE, provider, run.options)
    expect(out).toMatchObject({ ok: true, attempts: 2 })
    const sent = mock.requests.filter((r) => r.status === 200).map((r) => seen(r).system)
    expect(sent).toHaveLength(2)
    const report = run.reports[0]!
    expect(report.system).toBe(sent[0])
    expect(report.attempts[0]!.system).toBeUndefined()
    expect(report.attempts[1]!.system ?? report.system).toBe(sent[1])
  })
})

describe('the offline model, streamed', () => {
  it('hands its reply out in pieces that join to the reply it logs', async () => {
    const run = recorder()
    const out = await runLlmTask(EXECUTE, createOfflineProvider({ latencyMs: 0 }), run.options)
    expect(out.ok).toBe(true)
    expect(run.deltas.length).toBeGreaterThan(1)
    expect(run.deltas.length).toBeLessThanOrEqual(OFFLINE_STREAM_PIECES)
    expect(run.deltas.map((d) => d.delta).join('')).toBe(run.reports[0]!.attempts[0]!.reply)
  })
})
