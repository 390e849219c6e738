/**
 * The providers' real wire formats, as @ai-sdk/anthropic and @ai-sdk/openai
 * (Chat Completions) send and expect them; stream.ts streams the same replies.
 *
 * How a reply is shaped follows how the request asked for JSON:
 * - Anthropic `output_config.format` (json_schema) -> a text block of JSON;
 * - Anthropic forced tool (`tool_choice: {type: 'tool', name}`, the SDK's
 *   `json` tool on older models) -> a tool_use block with the object as input;
 * - OpenAI `response_format` json_schema / json_object -> JSON content;
 * - OpenAI forced function tool -> tool_calls with JSON arguments;
 * - neither (our 'text' mode for local servers) -> prose around a ```json
 *   fence, like a chatty local model, so the extraction path is exercised.
 */
import { estimateTokens } from '../../src/llm/tokens'

export type Api = 'anthropic' | 'openai'
export type ReplyForm = 'json' | 'tool' | 'text'

export interface ParsedRequest {
  api: Api
  model: string
  system: string
  prompt: string
  form: ReplyForm
  /** the tool the request forced, for a tool reply */
  toolName?: string
  /** the schema name, if the request carried one */
  schemaName?: string
  stream: boolean
}

type Json = Record<string, unknown>

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Text of a content field: a string or an array of {type: 'text', text} parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        isObj(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : '',
      )
      .join('')
  }
  return ''
}

/** The last user message with text: in a tool loop, later user messages hold only tool results. */
function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return ''
  const users = messages.filter((m) => isObj(m) && m.role === 'user')
  return (
    users
      .map((m) => textOf((m as Json).content))
      .filter(Boolean)
      .at(-1) ?? ''
  )
}

export function parseAnthropic(body: Json): ParsedRequest {
  const outputConfig = isObj(body.output_config) ? body.output_config : undefined
  const format = isObj(outputConfig?.format)
    ? outputConfig.format
    : isObj(body.output_format)
      ? body.output_format
      : undefined
  const toolChoice = isObj(body.tool_choice) ? body.tool_choice : undefined
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObj) : []
  let form: ReplyForm = 'text'
  let toolName: string | undefined
  if (format?.type === 'json_schema') form = 'json'
  else if (toolChoice?.type === 'tool' && typeof toolChoice.name === 'string') {
    form = 'tool'
    toolName = toolChoice.name
  } else if (toolChoice?.type === 'any' && typeof tools[0]?.name === 'string') {
    form = 'tool'
    toolName = tools[0].name as string
  }
  return {
    api: 'anthropic',
    model: typeof body.model === 'string' ? body.model : 'claude-mock',
    system: textOf(body.system),
    prompt: lastUserText(body.messages),
    form,
    toolName,
    stream: body.stream === true,
  }
}

export function parseOpenAi(body: Json): ParsedRequest {
  const messages = Array.isArray(body.messages) ? body.messages.filter(isObj) : []
  // Reasoning models get the system prompt as a 'developer' message.
  const system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n')
  const rf = isObj(body.response_format) ? body.response_format : undefined
  const toolChoice = isObj(body.tool_choice) ? body.tool_choice : undefined
  const fn = isObj(toolChoice?.function) ? toolChoice.function : undefined
  let form: ReplyForm = 'text'
  let toolName: string | undefined
  if (rf?.type === 'json_schema' || rf?.type === 'json_object') form = 'json'
  else if (toolChoice?.type === 'function' && typeof fn?.name === 'string') {
    form = 'tool'
    toolName = fn.name
  }
  const js = isObj(rf?.json_schema) ? rf.json_schema : undefined
  return {
    api: 'openai',
    model: typeof body.model === 'string' ? body.model : 'gpt-mock',
    system,
    prompt: lastUserText(messages),
    form,
    toolName,
    schemaName: typeof js?.name === 'string' ? js.name : undefined,
    stream: body.stream === true,
  }
}

/** The reply text in 'text' form: a short preface and a fenced block, as local models write. */
export function chattyJson(value: unknown): string {
  return `Sure! Here is the result:\n\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`\n`
}

let counter = 0
const nextId = (prefix: string): string =>
  `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`

/**
 * A successful completion. `value` is the object to return; `rawText`
 * replaces it verbatim (for deliberately invalid output).
 */
export function completion(req: ParsedRequest, value: unknown, rawText?: string): Json {
  const inputTokens = estimateTokens(req.system + req.prompt)
  const asTool = req.form === 'tool' && rawText === undefined
  const text = rawText ?? (req.form === 'text' ? chattyJson(value) : JSON.stringify(value))
  const outputTokens = estimateTokens(asTool ? JSON.stringify(value) : text)
  if (req.api === 'anthropic') {
    return {
      id: nextId('msg_mock_'),
      type: 'message',
      role: 'assistant',
      model: req.model,
      content: asTool
        ? [{ type: 'tool_use', id: nextId('toolu_mock_'), name: req.toolName, input: value }]
        : [{ type: 'text', text }],
      stop_reason: asTool ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: inputTokens,
        output_tokens: outputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        service_tier: 'standard',
      },
    }
  }
  const message: Json = asTool
    ? {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: nextId('call_mock_'),
            type: 'function',
            function: { name: req.toolName, arguments: JSON.stringify(value) },
          },
        ],
        refusal: null,
        annotations: [],
      }
    : { role: 'assistant', content: text, refusal: null, annotations: [] }
  return {
    id: nextId('chatcmpl-mock'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: req.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: asTool ? 'tool_calls' : 'stop' }],
    usage: {
      prompt_tokens: inputTokens,
      completion_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_mock',
  }
}

export type ErrorKind = 'auth' | 'rate-limit' | 'server-error' | 'bad-request'

/** Error bodies exactly as each provider shapes them. */
export function errorBody(api: Api, kind: ErrorKind, detail?: string): Json {
  if (api === 'anthropic') {
    const [type, message] = {
      auth: ['authentication_error', 'invalid x-api-key'],
      'rate-limit': [
        'rate_limit_error',
        'Number of requests has exceeded your per-minute rate limit',
      ],
      'server-error': ['api_error', 'Internal server error'],
      'bad-request': ['invalid_request_error', detail ?? 'invalid request'],
    }[kind]
    return { type: 'error', error: { type, message }, request_id: nextId('req_mock_') }
  }
  const error = {
    auth: {
      message:
        'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_api_key',
    },
    'rate-limit': {
      message: 'Rate limit reached for requests',
      type: 'requests',
      param: null,
      code: 'rate_limit_exceeded',
    },
    'server-error': {
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
      param: null,
      code: null,
    },
    'bad-request': {
      message: detail ?? 'invalid request',
      type: 'invalid_request_error',
      param: null,
      code: null,
    },
  }[kind]
  return { error }
}
