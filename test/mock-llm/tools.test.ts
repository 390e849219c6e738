/** The mock LLM's tool calls at the HTTP level, in each provider's wire shape. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildPrompts } from '../../src/llm/prompts'
import type { LlmTask } from '../../src/llm/types'
import { createMockLlmServer, type MockLlmServer } from './server'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const task: LlmTask = {
  kind: 'execute',
  path: ['Plan a garden'],
  task: 'Count the beds',
  capability: 'can_run_code',
  dependencies: [],
}
const { system, prompt } = buildPrompts(task)
const runJs = { code: { type: 'string' } }

let mock: MockLlmServer
beforeAll(async () => {
  mock = await createMockLlmServer({ toolCode: 'console.log(6 * 7)' })
})
afterAll(() => mock.close())

async function post(path: string, body: Json): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${mock.url}/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', authorization: 'Bearer k' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

describe('mock LLM tool calls', () => {
  it('Anthropic: a tool_use block, then an answer quoting the tool_result it got back', async () => {
    const tools = [{ name: 'run_javascript', input_schema: { type: 'object', properties: runJs } }]
    const base = { model: 'claude-sonnet-4-5', max_tokens: 100, system, tools }
    const first = await post('messages', { ...base, messages: [{ role: 'user', content: prompt }] })
    expect(first.body.stop_reason).toBe('tool_use')
    const use = first.body.content.find((b: Json) => b.type === 'tool_use')
    expect(use).toMatchObject({ name: 'run_javascript', input: { code: 'console.log(6 * 7)' } })
    const second = await post('messages', {
      ...base,
      messages: [
        { role: 'user', content: prompt },
        { role: 'assistant', content: first.body.content },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: use.id,
              content: JSON.stringify({ exit: 0, stdout: '42\n', stderr: '' }),
            },
          ],
        },
      ],
    })
    expect(second.body.stop_reason).toBe('end_turn')
    expect(JSON.parse(second.body.content[0].text).output).toContain('```text\n42\n```')
  })

  it('Anthropic: the server web search as server_tool_use and web_search_tool_result blocks', async () => {
    const { body } = await post('messages', {
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      system,
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
      messages: [{ role: 'user', content: prompt }],
    })
    expect(body.content.map((b: Json) => b.type)).toEqual([
      'server_tool_use',
      'web_search_tool_result',
      'text',
    ])
    expect(body.content[0]).toMatchObject({
      name: 'web_search',
      input: { query: 'Count the beds' },
    })
    expect(body.content[1].tool_use_id).toBe(body.content[0].id)
    expect(body.content[1].content[0]).toMatchObject({
      type: 'web_search_result',
      url: 'https://example.org/one',
      title: 'Mock result one',
    })
    expect(body.usage.server_tool_use).toEqual({ web_search_requests: 1 })
  })

  it('Chat Completions: tool_calls, then an answer quoting the role "tool" message', async () => {
    const tools = [{ type: 'function', function: { name: 'run_javascript', parameters: {} } }]
    const messages: Json[] = [
      { role: 'system', content: system },
      { role: 'user', content: prompt },
    ]
    const first = await post('chat/completions', { model: 'gpt-4.1-mini', messages, tools })
    const choice = first.body.choices[0]
    expect(choice.finish_reason).toBe('tool_calls')
    const call = choice.message.tool_calls[0]
    expect(call.function.name).toBe('run_javascript')
    expect(JSON.parse(call.function.arguments)).toEqual({ code: 'console.log(6 * 7)' })
    const second = await post('chat/completions', {
      model: 'gpt-4.1-mini',
      tools,
      messages: [
        ...messages,
        choice.message,
        {
          role: 'tool',
          tool_call_id: call.id,
          content: JSON.stringify({ exit: 0, stdout: '42\n' }),
        },
      ],
    })
    expect(second.body.choices[0].finish_reason).toBe('stop')
    expect(JSON.parse(second.body.choices[0].message.content).output).toContain('42')
    // tool_choice "none" (a loop's last call) gets an answer, never another call
    const last = await post('chat/completions', {
      model: 'gpt-4.1-mini',
      messages,
      tools,
      tool_choice: 'none',
    })
    expect(last.body.choices[0].finish_reason).toBe('stop')
  })

  it('Responses: a web_search_call item and a message with url_citation annotations', async () => {
    const { body } = await post('responses', {
      model: 'gpt-4.1-mini',
      input: [
        { role: 'system', content: system },
        { role: 'user', content: [{ type: 'input_text', text: prompt }] },
      ],
      tools: [{ type: 'web_search' }],
    })
    expect(body.object).toBe('response')
    expect(body.output[0]).toMatchObject({
      type: 'web_search_call',
      action: { type: 'search', query: 'Count the beds' },
    })
    expect(body.output[1].content[0].annotations[1]).toMatchObject({
      type: 'url_citation',
      url: 'https://example.org/two',
      title: 'Mock result two',
    })
  })

  it('rejects tools with a 400 naming them when told to, as servers without tool calling do', async () => {
    mock.setBehaviour({ tools: 'reject' })
    const { status, body } = await post('chat/completions', {
      model: 'llama3.1',
      messages: [{ role: 'user', content: prompt }],
      tools: [{ type: 'function', function: { name: 'run_javascript', parameters: {} } }],
    })
    mock.setBehaviour({ tools: 'use' })
    expect(status).toBe(400)
    expect(body.error.message).toMatch(/does not support tools/)
  })
})
