/** The mock LLM server at the HTTP level: CORS, error bodies, shape mode, latency, logging. */
import { afterEach, describe, expect, it } from 'vitest'
import { buildPrompts } from '../../src/llm/prompts'
import type { LlmTask } from '../../src/llm/types'
import { createMockLlmServer, type MockLlmServer } from './server'

/** Two subgoals: a score task judges each (at least MIN_SUBGOALS). */
const PAIR = [
  { text: 'Part 1', dependsOn: [] },
  { text: 'Part 2', dependsOn: [] },
]
/** A score call on PAIR, one level down of three. */
const SCORE_PAIR: LlmTask = {
  kind: 'score',
  path: ['Goal'],
  subgoals: PAIR,
  rationale: '',
  depth: 1,
  maxDepth: 3,
}

let mock: MockLlmServer | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

/** A minimal OpenAI Chat Completions request for a task, JSON mode. */
function openAiBody(task: LlmTask) {
  const { system, prompt } = buildPrompts(task)
  return {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: prompt },
    ],
    response_format: { type: 'json_object' },
  }
}

async function chat(server: MockLlmServer, task: LlmTask, key = 'k') {
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(openAiBody(task)),
  })
  const body = (await res.json()) as { choices: { message: { content: string } }[] }
  return { res, value: JSON.parse(body.choices[0]!.message.content) as Record<string, unknown> }
}

describe('mock LLM server', () => {
  it('binds to loopback and answers CORS preflights', async () => {
    mock = await createMockLlmServer()
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const res = await fetch(`${mock.url}/v1/messages`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key,anthropic-version,content-type',
      },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'x-api-key,anthropic-version,content-type',
    )
    expect(res.headers.get('access-control-allow-methods')).toContain('POST')
    const models = await fetch(`${mock.url}/v1/models`)
    expect(models.headers.get('access-control-allow-origin')).toBe('*')
  })

  it("answers unknown keys with each provider's real 401 body, and logs the key it saw", async () => {
    mock = await createMockLlmServer({ keys: ['good'] })
    const anthropic = await fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'bad',
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    })
    expect(anthropic.status).toBe(401)
    expect(await anthropic.json()).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    })
    const openai = await fetch(`${mock.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer bad' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(openai.status).toBe(401)
    expect(await openai.json()).toMatchObject({
      error: { code: 'invalid_api_key', type: 'invalid_request_error' },
    })
    expect(
      mock.requests.map((r) => [r.status, r.headers['x-api-key'] ?? r.headers.authorization]),
    ).toEqual([
      [401, 'bad'],
      [401, 'Bearer bad'],
    ])
  })

  it('in shape mode builds a fixed tree: branching subgoals, composite until max depth, fixed score', async () => {
    mock = await createMockLlmServer({ mode: 'shape', branching: 4, score: 0.8 })
    const { value: d } = await chat(mock, {
      kind: 'decompose',
      path: ['Goal'],
      depth: 0,
      maxDepth: 2,
    })
    expect((d.subgoals as unknown[]).length).toBe(4)
    // the score judges each subgoal: composite until the depth cap
    const score = (depth: number) =>
      chat(mock!, {
        kind: 'score',
        path: ['Goal'],
        subgoals: [
          { text: 'Part 1', dependsOn: [] },
          { text: 'Part 2', dependsOn: [] },
        ],
        rationale: '',
        depth,
        maxDepth: 2,
      })
    const shallow = (await score(1)).value
    expect(shallow.score).toBe(0.8)
    expect(shallow.judgements).toEqual([
      { atomic: false, capability: 'can_write_text' },
      { atomic: false, capability: 'can_write_text' },
    ])
    expect((await score(2)).value.judgements).toEqual([
      { atomic: true, capability: 'can_write_text' },
      { atomic: true, capability: 'can_write_text' },
    ])
    mock.setBehaviour({ branching: 2 })
    const { value: d2 } = await chat(mock, {
      kind: 'decompose',
      path: ['Other'],
      depth: 1,
      maxDepth: 2,
    })
    expect((d2.subgoals as unknown[]).length).toBe(2)
  })

  it('in offline mode answers the same question differently each time, like a sampling model', async () => {
    mock = await createMockLlmServer()
    const task: LlmTask = {
      kind: 'decompose',
      path: ['Plan a two-week trip to Japan'],
      depth: 0,
      maxDepth: 3,
    }
    const answers = new Set<string>()
    for (let i = 0; i < 6; i++) answers.add(JSON.stringify((await chat(mock, task)).value))
    expect(answers.size).toBeGreaterThan(1)
    expect(mock.requests.every((r) => r.taskKind === 'decompose' && r.api === 'openai')).toBe(true)
  })

  it('sleeps its latency without blocking concurrent requests', async () => {
    mock = await createMockLlmServer({ latencyMs: 300 })
    const started = Date.now()
    await Promise.all(Array.from({ length: 8 }, () => chat(mock!, SCORE_PAIR)))
    const elapsed = Date.now() - started
    expect(elapsed).toBeGreaterThanOrEqual(290)
    // Eight sequential calls would take 2.4 s.
    expect(elapsed).toBeLessThan(1_500)
  })

  it('holds answers until released', async () => {
    mock = await createMockLlmServer()
    const release = mock.hold()
    let answered = false
    const call = chat(mock, SCORE_PAIR).then(() => (answered = true))
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(mock.requests).toHaveLength(1)
    expect(answered).toBe(false)
    release()
    await call
    expect(answered).toBe(true)
  })

  it('fails on demand: 429 with retry-after, 500, then normal again', async () => {
    mock = await createMockLlmServer({ retryAfterSeconds: 3 })
    mock.failNext(1, 'rate-limit')
    mock.failNext(1, 'server-error')
    const post = () =>
      fetch(`${mock!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(openAiBody(SCORE_PAIR)),
      })
    const limited = await post()
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('3')
    expect(await limited.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } })
    expect((await post()).status).toBe(500)
    expect((await post()).status).toBe(200)
  })

  it('streams Chat Completions as server-sent events, and says clearly what it does not stream', async () => {
    mock = await createMockLlmServer()
    const post = (path: string, body: Record<string, unknown>) =>
      fetch(`${mock!.url}/v1/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'x', stream: true, ...body }),
      })
    const chat = await post('chat/completions', {
      messages: [{ role: 'user', content: 'hi' }],
      stream_options: { include_usage: true },
    })
    expect(chat.status).toBe(200)
    expect(chat.headers.get('content-type')).toBe('text/event-stream')
    const events = (await chat.text()).trim().split('\n\n')
    expect(events.at(-1)).toBe('data: [DONE]')
    const chunks = events.slice(0, -1).map(
      (e) =>
        JSON.parse(e.slice('data: '.length)) as {
          object: string
          choices: { delta: { content?: string } }[]
          usage?: unknown
        },
    )
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true)
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(
      mock.requests[0]!.replyText,
    )
    expect(chunks.at(-1)!.usage).toBeDefined()
    const responses = await post('responses', { input: 'hi' })
    expect(responses.status).toBe(400)
    expect(await responses.text()).toContain('does not stream')
    expect((await fetch(`${mock.url}/v2/anything`)).status).toBe(404)
  })
})
