/**
 * Tool calls on the mock LLM's wire (issue 24), as the providers speak them:
 *
 * - Anthropic Messages: `tools` (function tools with input_schema; the
 *   server tool {type: 'web_search_20250305', name: 'web_search'}),
 *   `tool_use` blocks in the reply, `tool_result` blocks in the next user
 *   message; the server search as `server_tool_use` + `web_search_tool_result`
 *   blocks with usage.server_tool_use.web_search_requests.
 * - OpenAI Chat Completions: `tools` [{type: 'function', function}],
 *   `tool_calls` in the reply, `role: 'tool'` messages with the results.
 * - OpenAI Responses (POST /v1/responses, where web search lives): `tools`
 *   [{type: 'web_search'}], a `web_search_call` output item, and a message
 *   whose output_text carries url_citation annotations.
 *
 * The script: offered run_javascript, the "model" calls it (with the test's
 * program, or one of its own) until it has `codeRounds` results, then
 * answers quoting the REAL stdout of the last result it got back; offered
 * web search, it searches once and answers citing the sources.
 */
import { estimateTokens } from '../../src/llm/tokens'
import type { Api } from './wire'

type Json = Record<string, unknown>
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v)

export const RUN_JAVASCRIPT = 'run_javascript'

/** Where a search lands by default: example.org pages, so nothing real is implied. */
export const DEFAULT_SEARCH_RESULTS: readonly { title: string; url: string }[] = [
  { title: 'Mock result one', url: 'https://example.org/one' },
  { title: 'Mock result two', url: 'https://example.org/two' },
]

/** What a request offers and already holds, tool-wise. */
export interface ToolState {
  /** run_javascript is offered (and tool_choice does not forbid it) */
  code: boolean
  /** the provider's web search is offered */
  search: boolean
  /** the request carries tools the loop offers (run_javascript or web search) at all */
  any: boolean
  /** run_javascript results already in the conversation, oldest first (their text) */
  results: string[]
}

function anthropicState(body: Json): ToolState {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObj) : []
  const none = isObj(body.tool_choice) && body.tool_choice.type === 'none'
  const code = tools.some((t) => t.name === RUN_JAVASCRIPT)
  const search = tools.some((t) => typeof t.type === 'string' && t.type.startsWith('web_search'))
  const results: string[] = []
  for (const message of Array.isArray(body.messages) ? body.messages.filter(isObj) : []) {
    if (message.role !== 'user' || !Array.isArray(message.content)) continue
    for (const block of message.content.filter(isObj)) {
      if (block.type !== 'tool_result') continue
      const content = block.content
      results.push(
        typeof content === 'string'
          ? content
          : Array.isArray(content)
            ? content.map((c) => (isObj(c) && typeof c.text === 'string' ? c.text : '')).join('')
            : '',
      )
    }
  }
  return { code: code && !none, search: search && !none, any: code || search, results }
}

function chatState(body: Json): ToolState {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObj) : []
  const none = body.tool_choice === 'none'
  const code = tools.some((t) => isObj(t.function) && t.function.name === RUN_JAVASCRIPT)
  const messages = Array.isArray(body.messages) ? body.messages.filter(isObj) : []
  const results = messages
    .filter((m) => m.role === 'tool')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
  return { code: code && !none, search: false, any: code, results }
}

function responsesState(body: Json): ToolState {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObj) : []
  const none = body.tool_choice === 'none'
  const search = tools.some((t) => typeof t.type === 'string' && t.type.startsWith('web_search'))
  const code = tools.some((t) => t.type === 'function' && t.name === RUN_JAVASCRIPT)
  const input = Array.isArray(body.input) ? body.input.filter(isObj) : []
  const results = input
    .filter((item) => item.type === 'function_call_output')
    .map((item) => (typeof item.output === 'string' ? item.output : JSON.stringify(item.output)))
  return { code: code && !none, search: search && !none, any: code || search, results }
}

export type ToolApi = Api | 'responses'

export function toolState(api: ToolApi, body: Json): ToolState {
  if (api === 'anthropic') return anthropicState(body)
  if (api === 'responses') return responsesState(body)
  return chatState(body)
}

/** A run_javascript result the SDK sent back ({exit, stdout, ...} as JSON, maybe wrapped as {type, value}). */
export function runOf(result: string): unknown {
  try {
    const parsed = JSON.parse(result) as unknown
    return isObj(parsed) && parsed.type === 'json' && isObj(parsed.value) ? parsed.value : parsed
  } catch {
    return { exit: 0, stdout: result }
  }
}

/** The deliverable after a search: the task's answer and its sources as links. */
export function answerWithSources(
  output: string,
  sources: readonly { title: string; url: string }[],
): string {
  return `${output}\n\n### Sources\n\n${sources.map((s) => `- [${s.title}](${s.url})`).join('\n')}`
}

let counter = 0
const nextId = (prefix: string): string =>
  `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`

/** A reply that calls run_javascript with `code`, in the api's wire format. */
export function codeCallReply(
  api: ToolApi,
  model: string,
  code: string,
  inputTokens: number,
): Json {
  const args = JSON.stringify({ code })
  const outputTokens = estimateTokens(args)
  if (api === 'responses') {
    return responsesEnvelope(
      model,
      [
        {
          type: 'function_call',
          id: nextId('fc_mock_'),
          call_id: nextId('call_mock_'),
          name: RUN_JAVASCRIPT,
          arguments: args,
          status: 'completed',
        },
      ],
      inputTokens,
      outputTokens,
    )
  }
  const calls = [{ name: RUN_JAVASCRIPT, input: { code } }]
  return toolCallsReply(api, model, calls, 'Let me compute that.', inputTokens, outputTokens)
}

/**
 * A reply that calls each of `calls` at once, on Anthropic's Messages or
 * Chat Completions wire (the code tool's and a person's MCP tools' alike),
 * `lead` being the text an Anthropic model says before its calls.
 */
export function toolCallsReply(
  api: Api,
  model: string,
  calls: readonly { name: string; input: unknown }[],
  lead: string,
  inputTokens: number,
  outputTokens: number,
): Json {
  if (api === 'anthropic') {
    return {
      id: nextId('msg_mock_'),
      type: 'message',
      role: 'assistant',
      model,
      content: [
        { type: 'text', text: lead },
        ...calls.map((call) => ({
          type: 'tool_use',
          id: nextId('toolu_mock_'),
          name: call.name,
          input: call.input,
        })),
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: outputTokens },
    }
  }
  return {
    id: nextId('chatcmpl-mock'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: calls.map((call) => ({
            id: nextId('call_mock_'),
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.input) },
          })),
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: {
      prompt_tokens: inputTokens,
      completion_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
    },
  }
}

function responsesEnvelope(model: string, output: Json[], input: number, out: number): Json {
  return {
    id: nextId('resp_mock_'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model,
    output,
    usage: {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: out,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + out,
    },
  }
}

/**
 * A reply in which the provider searched (server-side) and the model
 * answered with `text`, citing `sources`.
 */
export function searchReply(
  api: 'anthropic' | 'responses',
  model: string,
  query: string,
  sources: readonly { title: string; url: string }[],
  text: string,
  inputTokens: number,
): Json {
  const outputTokens = estimateTokens(text)
  if (api === 'anthropic') {
    const id = nextId('srvtoolu_mock_')
    return {
      id: nextId('msg_mock_'),
      type: 'message',
      role: 'assistant',
      model,
      content: [
        { type: 'server_tool_use', id, name: 'web_search', input: { query } },
        {
          type: 'web_search_tool_result',
          tool_use_id: id,
          content: sources.map((s) => ({
            type: 'web_search_result',
            url: s.url,
            title: s.title,
            encrypted_content: 'bW9jaw==',
            page_age: null,
          })),
        },
        { type: 'text', text },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: inputTokens,
        output_tokens: outputTokens,
        server_tool_use: { web_search_requests: 1 },
      },
    }
  }
  return responsesEnvelope(
    model,
    [
      {
        type: 'web_search_call',
        id: nextId('ws_mock_'),
        status: 'completed',
        action: {
          type: 'search',
          query,
          sources: sources.map((s) => ({ type: 'url', url: s.url })),
        },
      },
      {
        type: 'message',
        id: nextId('msg_mock_'),
        role: 'assistant',
        status: 'completed',
        content: [
          {
            type: 'output_text',
            text,
            annotations: sources.map((s) => ({
              type: 'url_citation',
              start_index: 0,
              end_index: 0,
              url: s.url,
              title: s.title,
            })),
            logprobs: [],
          },
        ],
      },
    ],
    inputTokens,
    outputTokens,
  )
}

/** A plain text answer on the Responses API (the final reply of a loop there). */
export function responsesTextReply(model: string, text: string, inputTokens: number): Json {
  return responsesEnvelope(
    model,
    [
      {
        type: 'message',
        id: nextId('msg_mock_'),
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
      },
    ],
    inputTokens,
    estimateTokens(text),
  )
}

/** The system text and the task prompt of a Responses request (system/developer and user items). */
export function parseResponses(body: Json): { model: string; system: string; prompt: string } {
  const input = Array.isArray(body.input) ? body.input.filter(isObj) : []
  const textOf = (content: unknown): string =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((c) => (isObj(c) && typeof c.text === 'string' ? c.text : '')).join('')
        : ''
  const system = [
    typeof body.instructions === 'string' ? body.instructions : '',
    ...input
      .filter((i) => i.role === 'system' || i.role === 'developer')
      .map((i) => textOf(i.content)),
  ]
    .filter(Boolean)
    .join('\n')
  const users = input.filter((i) => i.role === 'user').map((i) => textOf(i.content))
  return {
    model: typeof body.model === 'string' ? body.model : 'gpt-mock',
    system,
    prompt: users.filter(Boolean).at(-1) ?? '',
  }
}
