/**
 * Personas at the wire level: each habit is on the wire as real models and
 * providers put it there, the correct answer is still inside it, and the
 * habits are deterministic given the seed.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { buildPrompts, withRetryFeedback } from '../../src/llm/prompts'
import type { LlmTask } from '../../src/llm/types'
import { offlineAnswer } from '../../src/llm/offline'
import { DRAFT_MARKER, goDuration } from './habits'
import { PERSONAS, sampleLatency, type PersonaName } from './personas'
import { createMockLlmServer, type MockLlmServer } from './server'

/** Personas' latencies (seconds at real scale) down to milliseconds. */
const TIME_SCALE = 0.001

let mock: MockLlmServer | undefined
const start = (init: Parameters<typeof createMockLlmServer>[0] = {}) =>
  createMockLlmServer({ timeScale: TIME_SCALE, ...init })
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

const EXECUTE: LlmTask = {
  kind: 'execute',
  path: ['Plan a small picnic for four friends', 'Pick the food'],
  task: 'Write a shopping list for four people',
  capability: 'can_write_text',
  dependencies: [],
}
const DECOMPOSE: LlmTask = {
  kind: 'decompose',
  path: ['Plan a small picnic for four friends'],
  depth: 0,
  maxDepth: 2,
}

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

async function openAi(
  task: LlmTask,
  persona: PersonaName,
  extra: { key?: string; stream?: boolean; tools?: boolean; retry?: string } = {},
) {
  const { system, prompt } = buildPrompts(task)
  const user = extra.retry ? withRetryFeedback(prompt, extra.retry) : prompt
  const res = await fetch(`${mock!.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${extra.key ?? 'k'}` },
    body: JSON.stringify({
      model: `persona:${persona}`,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      response_format: { type: 'json_object' },
      ...(extra.stream ? { stream: true } : {}),
      ...(extra.tools
        ? { tools: [{ type: 'function', function: { name: 'run_javascript', parameters: {} } }] }
        : {}),
    }),
  })
  return { res, text: await res.text() }
}

async function anthropic(task: LlmTask, persona: PersonaName, stream = false) {
  const { system, prompt } = buildPrompts(task)
  const res = await fetch(`${mock!.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'x-mock-persona': persona },
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      system,
      max_tokens: 1000,
      messages: [{ role: 'user', content: prompt }],
      ...(stream ? { stream: true } : {}),
    }),
  })
  return { res, text: await res.text() }
}

const content = (text: string) => (JSON.parse(text) as Json).choices[0].message.content as string

describe('mock LLM personas', () => {
  it('think: a <think> block with a different draft, then the answer', async () => {
    mock = await start()
    const { text } = await openAi(EXECUTE, 'think')
    const reply = content(text)
    const [thinking, answer] = reply.split('</think>')
    expect(thinking).toContain('<think>')
    expect(thinking).toContain(DRAFT_MARKER)
    expect(answer).not.toContain(DRAFT_MARKER)
    const correct = mock.requests[0]!.answer as { output: string }
    expect(answer).toContain(JSON.stringify(correct.output))
  })

  it('chatty: prose around a fence whose JSON needs repair (a trailing comma or a // line)', async () => {
    mock = await start()
    const { text } = await openAi(DECOMPOSE, 'chatty')
    const reply = content(text)
    const fenced = /```json\n([\s\S]*?)\n```/.exec(reply)![1]!
    expect(reply.indexOf('```')).toBeGreaterThan(0)
    expect(() => JSON.parse(fenced)).toThrow()
    expect(fenced).toMatch(/,\n}|\/\/ /)
    const repaired = fenced.replace(/^\s*\/\/.*$/m, '').replace(/,(\s*})$/, '$1')
    expect(JSON.parse(repaired)).toEqual(mock.requests[0]!.answer)
  })

  it('plain-text: deliverables as bare Markdown, other tasks still JSON', async () => {
    mock = await start()
    const execute = content((await openAi(EXECUTE, 'plain-text')).text)
    expect(execute).toBe((mock.requests[0]!.answer as { output: string }).output)
    expect(() => JSON.parse(execute)).toThrow()
    const decompose = content((await openAi(DECOMPOSE, 'plain-text')).text)
    expect(decompose).toContain('"subgoals"')
  })

  it('truncating: cuts replies mid-JSON with finish_reason length / stop_reason max_tokens, never twice in a row for a task', async () => {
    mock = await start()
    const finishes: string[] = []
    for (let i = 0; i < 8; i++) {
      const body = JSON.parse((await openAi(EXECUTE, 'truncating')).text) as Json
      const choice = body.choices[0]
      finishes.push(choice.finish_reason)
      if (choice.finish_reason === 'length')
        expect(() => JSON.parse(choice.message.content)).toThrow()
    }
    expect(finishes).toContain('length')
    expect(finishes).toContain('stop')
    expect(finishes.join(',')).not.toContain('length,length')
    let cut = false
    for (let i = 0; i < 8 && !cut; i++) {
      const body = JSON.parse((await anthropic(DECOMPOSE, 'truncating')).text) as Json
      cut = body.stop_reason === 'max_tokens'
    }
    expect(cut).toBe(true)
  })

  it('rate-limited: 3 requests per window per key, then 429s carrying each back-off signal in turn', async () => {
    mock = await start({ timeScale: 0.5 }) // a 5 s window
    const statuses: number[] = []
    const signals: string[] = []
    for (let i = 0; i < 7; i++) {
      const { res, text } = await openAi(EXECUTE, 'rate-limited')
      statuses.push(res.status)
      if (res.status !== 429) continue
      const body = JSON.parse(text) as Json
      const message = body.error.message as string
      if (/Please try again in \d/.test(message)) signals.push('body')
      if (res.headers.get('retry-after')) signals.push('retry-after')
      if (res.headers.get('retry-after-ms')) signals.push('retry-after-ms')
      if (res.headers.get('x-ratelimit-reset-requests')) signals.push('reset')
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429])
    expect(signals).toEqual(['body', 'retry-after', 'retry-after-ms', 'reset'])
    // another key has its own limit
    expect((await openAi(EXECUTE, 'rate-limited', { key: 'other' })).res.status).toBe(200)
    expect(goDuration(120)).toBe('120ms')
    expect(goDuration(2500)).toBe('2.5s')
    expect(goDuration(63_000)).toBe('1m3s')
  })

  it('reasoning-field: reasoning_content (streamed first) and Anthropic thinking blocks, clean text', async () => {
    mock = await start()
    const body = JSON.parse((await openAi(EXECUTE, 'reasoning-field')).text) as Json
    expect(body.choices[0].message.reasoning_content).toContain(DRAFT_MARKER)
    expect(JSON.parse(body.choices[0].message.content)).toEqual(mock.requests[0]!.answer)
    const streamed = (await openAi(EXECUTE, 'reasoning-field', { stream: true })).text
    expect(streamed.indexOf('"reasoning_content"')).toBeLessThan(streamed.indexOf('"content":"{'))
    const message = JSON.parse((await anthropic(EXECUTE, 'reasoning-field')).text) as Json
    expect(message.content.map((b: Json) => b.type)).toEqual(['thinking', 'text'])
    expect(message.content[0].thinking).toContain(DRAFT_MARKER)
    const events = (await anthropic(EXECUTE, 'reasoning-field', true)).text
    expect(events).toContain('"thinking_delta"')
    expect(events).toContain('"signature_delta"')
  })

  it('overloaded: 500/503 (and Anthropic 529), never three in a row for one task', async () => {
    mock = await start()
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) statuses.push((await openAi(EXECUTE, 'overloaded')).res.status)
    expect(statuses.some((s) => s === 500 || s === 503)).toBe(true)
    expect(statuses).toContain(200)
    expect(statuses.map((s) => (s === 200 ? '.' : 'x')).join('')).not.toContain('xxx')
    const anthropicStatuses: number[] = []
    for (let i = 0; i < 30; i++)
      anthropicStatuses.push((await anthropic(EXECUTE, 'overloaded')).res.status)
    expect(anthropicStatuses).toContain(529)
  })

  it('no-tools: 400 on a request with tools, answers without', async () => {
    mock = await start()
    const refused = await openAi(EXECUTE, 'no-tools', { tools: true })
    expect(refused.res.status).toBe(400)
    expect(refused.text).toContain('does not support tools')
    expect((await openAi(EXECUTE, 'no-tools')).res.status).toBe(200)
  })

  it('verbose: over the limits at first, within them once told why', async () => {
    mock = await start()
    const first = JSON.parse(content((await openAi(DECOMPOSE, 'verbose')).text)) as Json
    expect(first.subgoals.length).toBe(7)
    expect(first.rationale.length).toBeGreaterThan(1_500)
    const retry = JSON.parse(
      content((await openAi(DECOMPOSE, 'verbose', { retry: 'too many subgoals' })).text),
    ) as Json
    expect(retry.subgoals.length).toBeLessThanOrEqual(6)
  })

  it('slow: lognormal latency, median 6 s, a long tail, scaled by timeScale', () => {
    const draws = Array.from({ length: 2_000 }, (_, i) =>
      sampleLatency(PERSONAS.slow.latency, 1, 7, `task-${i}`),
    ).sort((a, b) => a - b)
    const at = (q: number) => draws[Math.floor(q * draws.length)]!
    expect(at(0.5)).toBeGreaterThan(5_000)
    expect(at(0.5)).toBeLessThan(7_200)
    expect(at(0.9)).toBeGreaterThan(15_000)
    expect(at(0.99)).toBeGreaterThan(40_000)
    expect(sampleLatency(PERSONAS.slow.latency, 0.01, 7, 'task-0')).toBe(
      Math.round(sampleLatency(PERSONAS.slow.latency, 1, 7, 'task-0') * 0.01),
    )
  })

  it('is chosen per server, per header or per model id; an unknown name is a 400; the same seed gives the same habits', async () => {
    const replies: string[] = []
    for (let run = 0; run < 2; run++) {
      mock = await start({ persona: 'chatty', seed: 5 })
      const { system, prompt } = buildPrompts(DECOMPOSE)
      const res = await fetch(`${mock.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'llama3',
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: prompt },
          ],
        }),
      })
      replies.push(content(await res.text()))
      expect(mock.requests[0]!.persona).toBe('chatty')
      await mock.close()
    }
    expect(replies[0]).toBe(replies[1])
    mock = await start()
    expect((await anthropic(EXECUTE, 'think')).text).toContain('<think>')
    expect((await openAi(EXECUTE, 'nonsense' as PersonaName)).res.status).toBe(400)
    // the answer under a persona is the answer without one
    expect(offlineAnswer(EXECUTE, 'mock-0')).toEqual(mock.requests[0]!.answer)
  })
})
