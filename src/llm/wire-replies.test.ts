/**
 * Real models' habits over a real HTTP round trip (issue 44): a node:http
 * server on 127.0.0.1 answers in the providers' own wire formats (OpenAI
 * Chat Completions as Ollama, DeepSeek and vLLM speak it; Anthropic
 * Messages), and the real provider code (AI SDK) reads it. What is checked
 * is what runLlmTask makes of it: reasoning set aside, cut replies asked
 * again with more room, the providers' back-off signals honoured.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { LlmCallReport } from './call-report'
import { createProvider } from './provider'
import { MAX_OUTPUT_TOKENS, runLlmTask, type RunTaskOptions } from './run-task'
import type { LlmTask, ModelConfig } from './types'

interface Answer {
  status?: number
  headers?: Record<string, string>
  /** a JSON body, or SSE events (each one `data:` line) when `sse` */
  body?: unknown
  sse?: unknown[]
}

interface Seen {
  path: string
  body: Record<string, unknown>
}

let server: Server
let base: string
const answers: Answer[] = []
const seen: Seen[] = []

function respond(req: IncomingMessage, res: ServerResponse, raw: string): void {
  seen.push({ path: req.url ?? '', body: JSON.parse(raw) as Record<string, unknown> })
  const answer = answers.shift()
  if (!answer) {
    res.writeHead(500).end('{"error":{"message":"script exhausted"}}')
    return
  }
  if (answer.sse) {
    res.writeHead(200, { 'content-type': 'text/event-stream', ...answer.headers })
    for (const event of answer.sse) res.write(`data: ${JSON.stringify(event)}\n\n`)
    res.end('data: [DONE]\n\n')
    return
  }
  res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers })
  res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body))
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = ''
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()))
    req.on('end', () => respond(req, res, raw))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
beforeEach(() => {
  answers.length = 0
  seen.length = 0
})

const DECOMPOSE: LlmTask = { kind: 'decompose', path: ['Plan a party'], depth: 0, maxDepth: 3 }
const EXECUTE: LlmTask = {
  kind: 'execute',
  path: ['Plan a party'],
  task: 'Book a venue',
  capability: 'can_write_text',
  dependencies: [],
}
const SPLIT = {
  subgoals: [
    { text: 'Book the venue', dependsOn: [] },
    { text: 'Send the invitations', dependsOn: [0] },
  ],
  rationale: 'venue first',
}

const local = (): ModelConfig => ({
  provider: 'openai-compatible',
  model: 'deepseek-r1:8b',
  baseUrl: base,
})
const anthropic = (): ModelConfig => ({
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  apiKey: 'sk-ant-test',
  baseUrl: base,
})

/** An OpenAI Chat Completions response. */
function chat(message: Record<string, unknown>, finish = 'stop', completionTokens = 40) {
  return {
    body: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_765_000_000,
      model: 'deepseek-r1:8b',
      choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
      usage: { prompt_tokens: 120, completion_tokens: completionTokens, total_tokens: 160 },
    },
  }
}

/** An Anthropic Messages response. */
function messages(content: unknown[], stop = 'end_turn') {
  return {
    body: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 150, output_tokens: 60 },
    },
  }
}

function run(task: LlmTask, config: ModelConfig, more: RunTaskOptions = {}) {
  const delays: number[] = []
  const reports: LlmCallReport[] = []
  const out = runLlmTask(task, createProvider(config), {
    sleep: async (ms) => void delays.push(ms),
    onCall: (r) => reports.push(r),
    ...more,
  })
  return { out, delays, reports }
}

describe('reasoning, over the wire', () => {
  it('reasoning_content is set aside, its tokens counted; a fenced reply with a trailing comma passes', async () => {
    const fenced = `Sure!\n\`\`\`json\n${JSON.stringify(SPLIT).replace(/}$/, ',}')}\n\`\`\`\nDone.`
    answers.push(
      chat(
        { content: fenced, reasoning_content: 'The venue comes first. '.repeat(10) },
        'stop',
        400,
      ),
    )
    const { out, reports } = run(DECOMPOSE, local())
    expect(await out).toMatchObject({
      ok: true,
      attempts: 1,
      value: SPLIT,
      usage: { outputTokens: 400 },
    })
    expect(reports[0]!.attempts[0]!.notes).toEqual([
      "set aside the model's separate reasoning (230 chars; its tokens are counted)",
      'repaired the JSON (trailing commas, comments, quotes…)',
    ])
    expect(reports[0]!.attempts[0]!.reply).toBe(fenced)
  })

  it('a <think> block that drafts the JSON (DeepSeek-R1 on Ollama): the answer after it is taken', async () => {
    const draft = JSON.stringify({ subgoals: [{ text: 'Only one step' }], rationale: 'draft' })
    const content = `<think>\nA first draft: ${draft}\nNo: two steps.\n</think>\n\n${JSON.stringify(SPLIT)}`
    answers.push(chat({ content }))
    const { out } = run(DECOMPOSE, local())
    expect(await out).toMatchObject({ ok: true, attempts: 1, value: SPLIT })
    expect(seen).toHaveLength(1)
  })

  it('an Anthropic thinking block is set aside; the text block is the answer', async () => {
    answers.push(
      messages([
        { type: 'thinking', thinking: 'Venue before invitations.', signature: 'sig-1' },
        { type: 'text', text: JSON.stringify(SPLIT) },
      ]),
    )
    const { out, reports } = run(DECOMPOSE, anthropic())
    expect(await out).toMatchObject({ ok: true, attempts: 1, value: SPLIT })
    expect(reports[0]!.attempts[0]!.notes).toEqual([
      "set aside the model's separate reasoning (25 chars; its tokens are counted)",
    ])
  })

  it('a streamed deliverable: reasoning deltas never reach the screen, plain Markdown is the output', async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 1_765_000_000,
      model: 'qwen3:8b',
      choices: [{ index: 0, delta, finish_reason: finish }],
    })
    answers.push({
      sse: [
        chunk({ role: 'assistant', reasoning_content: 'Think about ' }),
        chunk({ reasoning_content: 'the venue.' }),
        chunk({ content: '# Venue\n\n' }),
        chunk({ content: 'The Oak Room, 7 pm.' }),
        chunk({}, 'stop'),
      ],
    })
    const shown: string[] = []
    const { out, reports } = run(EXECUTE, local(), { onText: (delta) => shown.push(delta) })
    expect(await out).toMatchObject({
      ok: true,
      attempts: 1,
      value: { output: '# Venue\n\nThe Oak Room, 7 pm.' },
    })
    expect(shown.join('')).toBe('# Venue\n\nThe Oak Room, 7 pm.')
    expect(reports[0]!.attempts[0]!.notes).toEqual([
      "set aside the model's separate reasoning (22 chars; its tokens are counted)",
      'took the plain-text reply as the deliverable (it had no JSON wrapper)',
    ])
  })
})

describe('cut at the token limit, over the wire', () => {
  it('OpenAI finish_reason "length": asked again with twice max_tokens', async () => {
    answers.push(chat({ content: '{"subgoals": [{"text": "Book the venue", "depen' }, 'length'))
    answers.push(chat({ content: JSON.stringify(SPLIT) }))
    const { out, reports } = run(DECOMPOSE, local())
    expect(await out).toMatchObject({ ok: true, attempts: 2, value: SPLIT })
    const cap = MAX_OUTPUT_TOKENS.decompose
    expect(seen.map((s) => s.body.max_tokens)).toEqual([cap, 2 * cap])
    expect(reports[0]!.attempts[0]!.notes).toEqual([
      `reply cut at the token limit; retrying with maxOutputTokens ${2 * cap}`,
    ])
  })

  it('Anthropic stop_reason "max_tokens": the same', async () => {
    answers.push(messages([{ type: 'text', text: '{"subgoals": [{"text": "Book' }], 'max_tokens'))
    answers.push(messages([{ type: 'text', text: JSON.stringify(SPLIT) }]))
    const { out } = run(DECOMPOSE, anthropic())
    expect(await out).toMatchObject({ ok: true, attempts: 2, value: SPLIT })
    const cap = MAX_OUTPUT_TOKENS.decompose
    expect(seen.map((s) => s.body.max_tokens)).toEqual([cap, 2 * cap])
  })
})

describe("providers' back-off signals, over the wire", () => {
  it('a 429 that says "Please try again in 20s" only in its body is waited out 20 s, no attempt spent', async () => {
    answers.push({
      status: 429,
      body: {
        error: {
          message:
            'Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.',
          type: 'requests',
          code: 'rate_limit_exceeded',
        },
      },
    })
    answers.push(chat({ content: JSON.stringify(SPLIT) }))
    const { out, delays, reports } = run(DECOMPOSE, local())
    expect(await out).toMatchObject({ ok: true, attempts: 1 })
    expect(delays).toEqual([20_000])
    // two requests in all: the AI SDK's own retries (maxRetries) do not double ours
    expect(seen).toHaveLength(2)
    expect(reports[0]!.attempts[0]).toMatchObject({
      errorKind: 'rate-limit',
      notes: ['waited 20 s: rate limited (body said try again in 20s)'],
    })
  })

  it("OpenAI's x-ratelimit-reset-tokens on a 429 is the wait", async () => {
    answers.push({
      status: 429,
      headers: {
        'x-ratelimit-remaining-requests': '57',
        'x-ratelimit-reset-requests': '6m0s',
        'x-ratelimit-remaining-tokens': '0',
        'x-ratelimit-reset-tokens': '1.5s',
      },
      body: { error: { message: 'Rate limit reached on tokens per min (TPM)' } },
    })
    answers.push(chat({ content: JSON.stringify(SPLIT) }))
    const { out, delays } = run(DECOMPOSE, local())
    expect(await out).toMatchObject({ ok: true, attempts: 1 })
    expect(delays).toEqual([1_500])
  })

  it('an Anthropic 529 overload with retry-after is waited out', async () => {
    answers.push({
      status: 529,
      headers: { 'retry-after': '3' },
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    })
    answers.push(messages([{ type: 'text', text: JSON.stringify(SPLIT) }]))
    const { out, delays, reports } = run(DECOMPOSE, anthropic())
    expect(await out).toMatchObject({ ok: true, attempts: 1 })
    expect(delays).toEqual([3_000])
    expect(seen).toHaveLength(2)
    expect(reports[0]!.attempts[0]!.notes).toEqual([
      'waited 3 s: overloaded (retry-after header: 3)',
    ])
  })

  it('a context too long is said as such and not retried', async () => {
    answers.push({
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 8192 tokens. However, you requested 9100 tokens.",
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
    })
    answers.push(chat({ content: JSON.stringify(SPLIT) }))
    const { out } = run(DECOMPOSE, local())
    const outcome = await out
    expect(outcome).toMatchObject({ ok: false, errorKind: 'other', attempts: 1 })
    if (!outcome.ok) expect(outcome.error).toMatch(/does not fit .* context window \(400\)/)
    expect(seen).toHaveLength(1)
  })
})
