/**
 * The real provider code (AI SDK: Anthropic, OpenAI Chat Completions,
 * OpenAI-compatible) against the mock LLM server on loopback, speaking the
 * providers' real wire formats.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createMockLlmServer, type MockLlmServer } from '../../test/mock-llm/server'
import { createProvider } from './provider'
import type { LlmCallReport } from './call-report'
import { runLlmTask } from './run-task'
import { validateOutput } from './schemas'
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
  mock.setBehaviour({
    mode: 'offline',
    latencyMs: 0,
    structuredOutput: 'follow',
    retryAfterSeconds: 1,
  })
})

const root = 'Organize a surprise birthday party for my sister'
const TASKS: LlmTask[] = [
  { kind: 'decompose', path: [root], depth: 0, maxDepth: 3 },
  {
    kind: 'score',
    path: [root],
    subgoals: [
      { text: 'Book a venue for 30 guests', dependsOn: [] },
      { text: 'Send invitations and track RSVPs', dependsOn: [0] },
    ],
    rationale: 'Venue first.',
    depth: 1,
    maxDepth: 3,
  },
  {
    kind: 'execute',
    path: [root],
    task: 'Send invitations and track RSVPs',
    capability: 'can_write_text',
    dependencies: [{ text: 'Book a venue', output: 'The Oak Room, 7 pm' }],
  },
  {
    kind: 'rollup',
    path: [root],
    parts: [
      { text: 'Venue', output: '## Venue\nOak Room' },
      { text: 'Invites', output: 'Sent' },
    ],
  },
]

interface Case {
  name: string
  config: () => ModelConfig
  /** how the request should ask for JSON, as the mock saw it */
  form: 'json' | 'tool' | 'text'
  check: (headers: Record<string, string>) => void
}

const CASES: Case[] = [
  {
    name: 'Anthropic, native structured output',
    config: () => ({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      apiKey: KEY,
      baseUrl: `${mock.url}/v1`,
    }),
    form: 'json',
    check: (h) => {
      expect(h['x-api-key']).toBe(KEY)
      expect(h['anthropic-version']).toBe('2023-06-01')
      expect(h['anthropic-dangerous-direct-browser-access']).toBe('true')
      expect(h.authorization).toBeUndefined()
    },
  },
  {
    name: 'Anthropic, forced json tool (older model)',
    config: () => ({
      provider: 'anthropic',
      model: 'claude-3-haiku-20240307',
      apiKey: KEY,
      baseUrl: `${mock.url}/v1`,
    }),
    form: 'tool',
    check: (h) => expect(h['x-api-key']).toBe(KEY),
  },
  {
    name: 'OpenAI Chat Completions',
    config: () => ({
      provider: 'openai',
      model: 'gpt-4o-mini',
      apiKey: KEY,
      baseUrl: `${mock.url}/v1`,
    }),
    form: 'json',
    check: (h) => expect(h.authorization).toBe(`Bearer ${KEY}`),
  },
  {
    name: 'OpenAI reasoning model (developer message)',
    config: () => ({
      provider: 'openai',
      model: 'gpt-5-mini',
      apiKey: KEY,
      baseUrl: `${mock.url}/v1`,
    }),
    form: 'json',
    check: (h) => expect(h.authorization).toBe(`Bearer ${KEY}`),
  },
  {
    name: 'OpenAI-compatible (local server, JSON in text)',
    config: () => ({
      provider: 'openai-compatible',
      model: 'llama3.1:8b',
      apiKey: KEY,
      baseUrl: `${mock.url}/v1`,
    }),
    form: 'text',
    check: (h) => expect(h.authorization).toBe(`Bearer ${KEY}`),
  },
]

describe.each(CASES)('$name', ({ config, form, check }) => {
  it.each(TASKS.map((t) => [t.kind, t] as const))(
    'runs a %s task end to end',
    async (kind, task) => {
      const out = await runLlmTask(task, createProvider(config()), { backoffMs: 0 })
      expect(out.ok, out.ok ? '' : out.error).toBe(true)
      if (!out.ok) return
      expect(validateOutput(kind, out.value).ok).toBe(true)
      expect(out.attempts).toBe(1)
      expect(out.usage).toMatchObject({
        provider: config().provider,
        model: config().model,
        offline: false,
      })
      expect(out.usage.inputTokens).toBeGreaterThan(0)
      expect(out.usage.outputTokens).toBeGreaterThan(0)
      expect(mock.requests).toHaveLength(1)
      const request = mock.requests[0]!
      expect(request).toMatchObject({ taskKind: kind, form, status: 200 })
      check(request.headers)
    },
  )

  it('retries a reply that breaks the schema, with the error fed back over the wire', async () => {
    mock.failNext(1, 'schema-violation')
    const out = await runLlmTask(TASKS[0]!, createProvider(config()), { backoffMs: 0 })
    expect(out).toMatchObject({ ok: true, attempts: 2 })
    expect(JSON.stringify(mock.requests[1]!.body)).toContain('previous_reply_error')
    expect(JSON.stringify(mock.requests[1]!.body)).toContain('depends on 1, a later subgoal')
  })

  it('retries a reply that is not JSON', async () => {
    mock.failNext(1, 'invalid-json')
    const out = await runLlmTask(TASKS[1]!, createProvider(config()), { backoffMs: 0 })
    expect(out).toMatchObject({ ok: true, attempts: 2 })
  })

  it('reports a bad key without retrying', async () => {
    const out = await runLlmTask(TASKS[1]!, createProvider({ ...config(), apiKey: 'sk-wrong' }), {
      backoffMs: 0,
    })
    expect(out).toMatchObject({ ok: false, errorKind: 'auth', attempts: 1 })
    const seen = mock.requests[0]!.headers
    expect(seen['x-api-key'] ?? seen.authorization).toContain('sk-wrong')
  })

  it('waits out a 429 as retry-after says, without spending an attempt, then succeeds', async () => {
    mock.failNext(1, 'rate-limit')
    const delays: number[] = []
    const reports: LlmCallReport[] = []
    const out = await runLlmTask(TASKS[2]!, createProvider(config()), {
      backoffMs: 10,
      sleep: async (ms) => void delays.push(ms),
      onCall: (report) => reports.push(report),
    })
    expect(out).toMatchObject({ ok: true, attempts: 1 })
    expect(delays).toEqual([1_000])
    expect(reports[0]!.attempts[0]!.notes).toEqual([
      'waited 1 s: rate limited (retry-after header: 1)',
    ])
  })

  it('gives up after repeated 500s', async () => {
    mock.failNext(3, 'server-error')
    const out = await runLlmTask(TASKS[2]!, createProvider(config()), { backoffMs: 0 })
    expect(out).toMatchObject({ ok: false, errorKind: 'other', attempts: 3 })
    expect(mock.requests).toHaveLength(3)
  })
})

describe('structured output robustness', () => {
  const anthropic = () =>
    createProvider({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      apiKey: KEY,
      baseUrl: `${mock.url}/v1`,
    })
  const openai = () =>
    createProvider({
      provider: 'openai',
      model: 'gpt-4o-mini',
      apiKey: KEY,
      baseUrl: `${mock.url}/v1`,
    })

  it.each([
    ['Anthropic', anthropic],
    ['OpenAI', openai],
  ])(
    '%s: rescues JSON from chatty text when the model ignores the requested format',
    async (_, make) => {
      mock.setBehaviour({ structuredOutput: 'ignore' })
      const out = await runLlmTask(TASKS[0]!, make(), { backoffMs: 0 })
      expect(out).toMatchObject({ ok: true, attempts: 1 })
    },
  )

  it('falls back to JSON-in-text for good when a server rejects structured output', async () => {
    mock.setBehaviour({ structuredOutput: 'reject' })
    const provider = createProvider(
      { provider: 'openai-compatible', model: 'qwen', apiKey: KEY, baseUrl: `${mock.url}/v1` },
      { structuredOutput: 'native' },
    )
    const first = await runLlmTask(TASKS[0]!, provider, { backoffMs: 0 })
    expect(first).toMatchObject({ ok: true, attempts: 1 })
    expect(mock.requests.map((r) => r.status)).toEqual([400, 200])
    const second = await runLlmTask(TASKS[1]!, provider, { backoffMs: 0 })
    expect(second.ok).toBe(true)
    expect(mock.requests.map((r) => r.form)).toEqual(['json', 'text', 'text'])
  })
})

describe('provider configuration and failures', () => {
  it('sends no Authorization header to an OpenAI-compatible server without a key', async () => {
    mock.setBehaviour({ keys: undefined })
    try {
      const provider = createProvider({
        provider: 'openai-compatible',
        model: 'llama3.1',
        baseUrl: `${mock.url}/v1`,
      })
      expect(provider.label).toBe(`${new URL(mock.url).host} · llama3.1`)
      const out = await runLlmTask(TASKS[2]!, provider, { backoffMs: 0 })
      expect(out.ok).toBe(true)
      expect(mock.requests[0]!.headers.authorization).toBeUndefined()
    } finally {
      mock.setBehaviour({ keys: [KEY] })
    }
  })

  it('refuses to call Anthropic or OpenAI without a key, as a bad-key error', async () => {
    const out = await runLlmTask(
      TASKS[2]!,
      createProvider({ provider: 'openai', model: 'gpt-4o', baseUrl: `${mock.url}/v1` }),
    )
    expect(out).toMatchObject({ ok: false, errorKind: 'auth', attempts: 1 })
    expect(mock.requests).toHaveLength(0)
  })

  it('reports an unreachable provider', async () => {
    const closed = await createMockLlmServer()
    const url = `${closed.url}/v1`
    await closed.close()
    const out = await runLlmTask(
      TASKS[2]!,
      createProvider({
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        apiKey: KEY,
        baseUrl: url,
      }),
      {
        backoffMs: 0,
      },
    )
    expect(out).toMatchObject({ ok: false, errorKind: 'unreachable', attempts: 3 })
    if (!out.ok) expect(out.error).toMatch(/cannot reach Anthropic/)
  })

  it('aborts an in-flight request', async () => {
    mock.setBehaviour({ latencyMs: 5_000 })
    const controller = new AbortController()
    const started = Date.now()
    const pending = runLlmTask(
      TASKS[2]!,
      createProvider({
        provider: 'openai',
        model: 'gpt-4o-mini',
        apiKey: KEY,
        baseUrl: `${mock.url}/v1`,
      }),
      {
        signal: controller.signal,
      },
    )
    setTimeout(() => controller.abort(), 50)
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
    expect(Date.now() - started).toBeLessThan(2_000)
  })
})
