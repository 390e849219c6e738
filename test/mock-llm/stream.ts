/**
 * Streamed replies, in the providers' real server-sent-event formats, made
 * from the same complete reply the mock would send unstreamed (wire.ts), so
 * a streamed answer says exactly what the unstreamed one would:
 *
 * - Anthropic Messages (`stream: true`): `event: message_start`, then per
 *   content block `content_block_start`, `content_block_delta`s
 *   (`text_delta`, or `input_json_delta` for a tool_use block),
 *   `content_block_stop`; then `message_delta` (stop reason, output tokens)
 *   and `message_stop`.
 * - OpenAI Chat Completions (`stream: true`): `data:` lines of
 *   `chat.completion.chunk` objects (the role, then content or tool-call
 *   argument deltas, then the finish reason), a usage chunk when the request
 *   asked for one (`stream_options.include_usage`), and `data: [DONE]`.
 *
 * A test may hold a stream open midway (server.ts `holdStream`): half the
 * events go out, the rest wait for the release.
 */
import type { ServerResponse } from 'node:http'
import type { Api } from './wire'

type Json = Record<string, unknown>

/** Characters per text delta: small enough that a short reply still comes in several pieces. */
export const STREAM_CHUNK_CHARS = 24

export interface SseEvent {
  /** the `event:` name (Anthropic names every event; OpenAI sends bare data) */
  event?: string
  data: string
}

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v)

function pieces(text: string): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += STREAM_CHUNK_CHARS)
    out.push(text.slice(i, i + STREAM_CHUNK_CHARS))
  return out.length > 0 ? out : ['']
}

function anthropicEvents(message: Json): SseEvent[] {
  const usage = isObj(message.usage) ? message.usage : {}
  const content = Array.isArray(message.content) ? message.content.filter(isObj) : []
  const named = (event: string, data: Json): SseEvent => ({
    event,
    data: JSON.stringify({ type: event, ...data }),
  })
  const events: SseEvent[] = [
    named('message_start', {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
  ]
  content.forEach((block, index) => {
    if (block.type === 'thinking') {
      // extended thinking: the thoughts, then the block's signature (personas' reasoning field)
      events.push(
        named('content_block_start', {
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        }),
      )
      for (const thinking of pieces(typeof block.thinking === 'string' ? block.thinking : ''))
        events.push(
          named('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } }),
        )
      events.push(
        named('content_block_delta', {
          index,
          delta: { type: 'signature_delta', signature: String(block.signature ?? '') },
        }),
      )
    } else if (block.type === 'tool_use') {
      events.push(named('content_block_start', { index, content_block: { ...block, input: {} } }))
      for (const partial_json of pieces(JSON.stringify(block.input ?? {})))
        events.push(
          named('content_block_delta', {
            index,
            delta: { type: 'input_json_delta', partial_json },
          }),
        )
    } else {
      events.push(
        named('content_block_start', { index, content_block: { type: 'text', text: '' } }),
      )
      for (const text of pieces(typeof block.text === 'string' ? block.text : ''))
        events.push(named('content_block_delta', { index, delta: { type: 'text_delta', text } }))
    }
    events.push(named('content_block_stop', { index }))
  })
  events.push(
    named('message_delta', {
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens ?? 0 },
    }),
    named('message_stop', {}),
  )
  return events
}

function openAiEvents(completion: Json, includeUsage: boolean): SseEvent[] {
  const choice =
    Array.isArray(completion.choices) && isObj(completion.choices[0]) ? completion.choices[0] : {}
  const message = isObj(choice.message) ? choice.message : {}
  const base = {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    system_fingerprint: completion.system_fingerprint ?? null,
  }
  const chunk = (delta: Json, finish: unknown = null, extra: Json = {}): SseEvent => ({
    data: JSON.stringify({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...extra,
    }),
  })
  const events: SseEvent[] = [chunk({ role: 'assistant', content: '', refusal: null })]
  // reasoning first, in its own field, as DeepSeek, vLLM and llama.cpp stream it
  if (typeof message.reasoning_content === 'string')
    for (const reasoning_content of pieces(message.reasoning_content))
      events.push(chunk({ reasoning_content }))
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObj) : []
  calls.forEach((call, index) => {
    const fn = isObj(call.function) ? call.function : {}
    const args = typeof fn.arguments === 'string' ? fn.arguments : ''
    pieces(args).forEach((part, i) =>
      events.push(
        chunk({
          tool_calls: [
            i === 0
              ? {
                  index,
                  id: call.id,
                  type: 'function',
                  function: { name: fn.name, arguments: part },
                }
              : { index, function: { arguments: part } },
          ],
        }),
      ),
    )
  })
  if (typeof message.content === 'string' && message.content !== '')
    for (const content of pieces(message.content)) events.push(chunk({ content }))
  events.push(chunk({}, choice.finish_reason ?? 'stop'))
  if (includeUsage)
    events.push({ data: JSON.stringify({ ...base, choices: [], usage: completion.usage }) })
  events.push({ data: '[DONE]' })
  return events
}

/** The events of a complete reply, as the provider would stream it. */
export function streamEvents(api: Api, reply: Json, includeUsage: boolean): SseEvent[] {
  return api === 'anthropic' ? anthropicEvents(reply) : openAiEvents(reply, includeUsage)
}

/**
 * The model's text in a complete reply, as a client assembles it: the text
 * blocks, or the input of the tool a request forced (the AI SDK's `json`
 * tool: its argument deltas are the reply).
 */
export function replyText(api: Api, reply: Json, forcedTool: boolean): string {
  if (api === 'anthropic') {
    const content = Array.isArray(reply.content) ? reply.content.filter(isObj) : []
    return content
      .map((b) =>
        typeof b.text === 'string'
          ? b.text
          : forcedTool && b.type === 'tool_use'
            ? JSON.stringify(b.input ?? {})
            : '',
      )
      .join('')
  }
  const choice = Array.isArray(reply.choices) && isObj(reply.choices[0]) ? reply.choices[0] : {}
  const message = isObj(choice.message) ? choice.message : {}
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObj) : []
  const args = calls.map((c) =>
    isObj(c.function) && typeof c.function.arguments === 'string' ? c.function.arguments : '',
  )
  return typeof message.content === 'string' ? message.content : forcedTool ? args.join('') : ''
}

export function sseText(events: readonly SseEvent[]): string {
  return events
    .map((e) => `${e.event === undefined ? '' : `event: ${e.event}\n`}data: ${e.data}\n\n`)
    .join('')
}

/**
 * Sends the events; when `midway` is given, half of them go out first and
 * the rest once it resolves (the client has seen text, the call is not over).
 */
export async function sendStream(
  res: ServerResponse,
  events: readonly SseEvent[],
  midway?: () => Promise<void>,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': `req_mock_${Date.now()}`,
  })
  const half = midway ? Math.max(1, Math.floor(events.length / 2)) : events.length
  res.write(sseText(events.slice(0, half)))
  if (midway) {
    await midway()
    if (res.destroyed) return
    res.write(sseText(events.slice(half)))
  }
  res.end()
}
