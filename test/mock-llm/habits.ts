/**
 * What a persona (personas.ts) does to the mock's correct answer, and how
 * its refusals look on the wire. Pure: the server draws the chances and
 * passes the outcome in.
 *
 * - think: `<think>` with a DRAFT of the JSON (wrong on purpose: a client
 *   that takes the first object it finds takes the draft), then the answer.
 * - chatty: prose, a ```json fence whose JSON has a trailing comma and/or
 *   a `//` line, more prose.
 * - plain-text: execute and roll-up answered as bare Markdown.
 * - verbose: 7 subgoals and over-long rationale/notes/reason, first attempt only.
 * - reasoning field: the thoughts (with the draft) go in `reasoning_content`
 *   (OpenAI-compatible) or a thinking block (Anthropic), the text is clean.
 * - truncation: the text cut at a fraction, finish reason "length" /
 *   stop reason "max_tokens".
 */
import type { LlmTaskKind } from '../../src/llm/types'
import { MAX_NOTES, MAX_RATIONALE, MAX_SUBGOAL_TEXT, MAX_SUBGOALS } from '../../src/protocol/limits'
import { estimateTokens } from '../../src/llm/tokens'
import type { Persona } from './personas'
import { chattyJson, errorBody, type Api, type ReplyForm } from './wire'

type Json = Record<string, unknown>

/** Every draft carries this: a plan that shows it took a draft for the answer. */
export const DRAFT_MARKER = 'Draft, to revise'

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * A plausible first draft that is NOT the answer: fewer subgoals, a low
 * score, the opposite classification, a one-line deliverable. Each is
 * schema-valid, so only a client that skips the thinking avoids it.
 */
export function draftOf(kind: LlmTaskKind | undefined, value: unknown): unknown {
  const v = isObj(value) ? value : {}
  switch (kind) {
    case 'decompose': {
      const subgoals = Array.isArray(v.subgoals) ? v.subgoals.filter(isObj) : []
      return {
        subgoals: subgoals.slice(0, 2).map((s) => ({
          text: `${DRAFT_MARKER}: ${String(s.text)}`.slice(0, MAX_SUBGOAL_TEXT),
          dependsOn: [],
        })),
        rationale: `${DRAFT_MARKER}.`,
      }
    }
    case 'score': {
      // a draft that would pass the schema, with every judgement the other way
      const judged = Array.isArray(v.judgements) ? v.judgements.filter(isObj) : []
      return {
        score: 0.1,
        notes: `${DRAFT_MARKER}.`,
        judgements: judged.map((j) => ({ atomic: j.atomic !== true, capability: j.capability })),
      }
    }
    default: {
      const output = typeof v.output === 'string' ? v.output : ''
      return { output: `${DRAFT_MARKER}: ${output.split('\n')[0] ?? ''}` }
    }
  }
}

function thoughts(kind: LlmTaskKind | undefined, value: unknown): string {
  return (
    `Okay, the user wants a ${kind ?? 'reply'} as JSON. Let me draft it first:\n` +
    `${JSON.stringify(draftOf(kind, value))}\n` +
    'Hmm, wait. That draft is too thin; let me check the instructions and the limits again ' +
    'and write the real answer.'
  )
}

const repeatTo = (text: string, length: number) =>
  text.length === 0 ? 'x'.repeat(length) : text.repeat(Math.ceil(length / text.length) + 1)

/** Over the protocol's limits: 7 subgoals, text fields past their maximum. */
export function overlong(kind: LlmTaskKind | undefined, value: unknown): unknown {
  if (!isObj(value)) return value
  switch (kind) {
    case 'decompose': {
      const subgoals = Array.isArray(value.subgoals) ? value.subgoals.filter(isObj) : []
      const padded = [...subgoals]
      for (let i = 0; padded.length <= MAX_SUBGOALS; i++) {
        const base = subgoals[i % Math.max(1, subgoals.length)]
        padded.push({
          text: `Double-check step ${i + 1}: ${String(base?.text ?? '')}`.slice(
            0,
            MAX_SUBGOAL_TEXT,
          ),
          dependsOn: [],
        })
      }
      const rationale = String(value.rationale ?? '')
      return {
        ...value,
        subgoals: padded,
        rationale: repeatTo(`${rationale} `, MAX_RATIONALE + 200),
      }
    }
    case 'score':
      return { ...value, notes: repeatTo(`${String(value.notes ?? '')} `, MAX_NOTES + 100) }
    default:
      return value
  }
}

/** Pretty JSON with Llama's slips: a `//` comment line, a trailing comma, or both. */
export function sloppyJson(value: unknown, slip: 'comma' | 'comment' | 'both'): string {
  const lines = JSON.stringify(value, null, 2).split('\n')
  if (slip !== 'comma' && lines.length > 2)
    lines.splice(1, 0, '  // every field filled in as the schema asks')
  if (slip !== 'comment' && lines.length > 2) {
    const last = lines.length - 2
    lines[last] = `${lines[last]},`
  }
  return lines.join('\n')
}

export function chattyText(value: unknown, slip: 'comma' | 'comment' | 'both'): string {
  return (
    "Sure! Here's the JSON you asked for. I followed the format closely:\n\n" +
    `\`\`\`json\n${sloppyJson(value, slip)}\n\`\`\`\n\n` +
    'Let me know if you would like me to change anything or add more detail.'
  )
}

export interface HabitInput {
  persona: Persona
  kind: LlmTaskKind | undefined
  /** the correct answer */
  value: unknown
  form: ReplyForm
  /** the request carried retry feedback (the model was told what was wrong) */
  retry: boolean
  /** the seeded draws the server made for this request */
  cut: boolean
  slip: 'comma' | 'comment' | 'both'
}

export interface HabitOutput {
  /** the value to send (verbose may change it) */
  value: unknown
  /** the reply text verbatim, when the persona writes it (else the form decides) */
  text?: string
  /** thoughts for the reasoning field */
  reasoning?: string
  /** the reply was cut at the token limit */
  cut: boolean
}

const isDeliverable = (kind: LlmTaskKind | undefined) => kind === 'execute' || kind === 'rollup'

export function applyHabits(input: HabitInput): HabitOutput {
  const { persona, kind, form } = input
  const value =
    persona.wrap === 'verbose' && !input.retry ? overlong(kind, input.value) : input.value
  const plain = form === 'text' ? chattyJson(value) : JSON.stringify(value)
  let text: string | undefined
  if (persona.wrap === 'plain-text' && isDeliverable(kind) && isObj(value))
    text = String(value.output ?? '')
  else if (persona.wrap === 'chatty') text = chattyText(value, input.slip)
  else if (persona.wrap === 'think')
    text = `<think>\n${thoughts(kind, value)}\n</think>\n\n${plain}`
  const reasoning = persona.reasoningField ? thoughts(kind, value) : undefined
  if (!input.cut)
    return {
      value,
      ...(text !== undefined ? { text } : {}),
      ...(reasoning ? { reasoning } : {}),
      cut: false,
    }
  const whole = text ?? plain
  const keep = persona.truncate?.keep ?? 1
  return {
    value,
    text: whole.slice(0, Math.floor(whole.length * keep)),
    ...(reasoning ? { reasoning } : {}),
    cut: true,
  }
}

/** A signature for a thinking block: Anthropic's are opaque; clients pass them back unread. */
const THINKING_SIGNATURE = 'mock-thinking-signature'

/** Marks a completion (wire.ts `completion`) as cut and/or adds the reasoning field. */
export function withHabits(api: Api, body: Json, habits: HabitOutput): Json {
  const reasoningTokens = habits.reasoning ? estimateTokens(habits.reasoning) : 0
  if (api === 'anthropic') {
    const content = Array.isArray(body.content) ? body.content : []
    const usage = isObj(body.usage) ? body.usage : {}
    return {
      ...body,
      content: habits.reasoning
        ? [
            { type: 'thinking', thinking: habits.reasoning, signature: THINKING_SIGNATURE },
            ...content,
          ]
        : content,
      ...(habits.cut ? { stop_reason: 'max_tokens' } : {}),
      usage: { ...usage, output_tokens: Number(usage.output_tokens ?? 0) + reasoningTokens },
    }
  }
  const choices = Array.isArray(body.choices) ? body.choices.filter(isObj) : []
  const usage = isObj(body.usage) ? body.usage : {}
  const choice = choices[0] ?? {}
  const message = isObj(choice.message) ? choice.message : {}
  return {
    ...body,
    choices: [
      {
        ...choice,
        message: habits.reasoning ? { ...message, reasoning_content: habits.reasoning } : message,
        ...(habits.cut ? { finish_reason: 'length' } : {}),
      },
    ],
    usage: {
      ...usage,
      completion_tokens: Number(usage.completion_tokens ?? 0) + reasoningTokens,
      total_tokens: Number(usage.total_tokens ?? 0) + reasoningTokens,
      completion_tokens_details: {
        ...(isObj(usage.completion_tokens_details) ? usage.completion_tokens_details : {}),
        reasoning_tokens: reasoningTokens,
      },
    },
  }
}

/** How OpenAI writes a wait: "120ms", "2.5s", "1m3s" (Go durations). */
export function goDuration(ms: number): string {
  if (ms < 1_000) return `${Math.ceil(ms)}ms`
  const seconds = Math.round(ms) / 1_000
  if (seconds < 60) return `${Number(seconds.toFixed(3))}s`
  const minutes = Math.floor(seconds / 60)
  return `${minutes}m${Number((seconds - minutes * 60).toFixed(3))}s`
}

/** The back-off signals a 429 may carry, one per refusal in turn. */
export const RATE_LIMIT_SIGNALS = ['body', 'retry-after', 'retry-after-ms', 'reset-header'] as const
export type RateLimitSignal = (typeof RATE_LIMIT_SIGNALS)[number]

export interface ErrorReply {
  status: number
  body: Json
  headers: Record<string, string>
}

/**
 * A 429 carrying the wait one way: in the message text only ("Please try
 * again in 2s"), `retry-after` (whole seconds, rounded up), `retry-after-ms`,
 * or the reset header (OpenAI `x-ratelimit-reset-requests` as a Go
 * duration; Anthropic `anthropic-ratelimit-requests-reset` as a time).
 */
export function rateLimitReply(
  api: Api,
  signal: RateLimitSignal,
  waitMs: number,
  limit: { requests: number; windowMs: number },
  now: number,
): ErrorReply {
  const body = errorBody(api, 'rate-limit')
  const error = body.error as Json
  const per = goDuration(limit.windowMs)
  error.message =
    api === 'anthropic'
      ? `This request would exceed your organization's rate limit of ${limit.requests} requests per ${per}.` +
        (signal === 'body' ? ` Please try again in ${goDuration(waitMs)}.` : '')
      : `Rate limit reached for requests: Limit ${limit.requests} per ${per}, Used ${limit.requests}, Requested 1.` +
        (signal === 'body' ? ` Please try again in ${goDuration(waitMs)}.` : '') +
        ' Visit https://platform.openai.com/account/rate-limits to learn more.'
  const headers: Record<string, string> = {}
  if (signal === 'retry-after')
    headers['retry-after'] = String(Math.max(1, Math.ceil(waitMs / 1_000)))
  if (signal === 'retry-after-ms') headers['retry-after-ms'] = String(Math.ceil(waitMs))
  if (signal === 'reset-header') {
    if (api === 'anthropic') {
      headers['anthropic-ratelimit-requests-limit'] = String(limit.requests)
      headers['anthropic-ratelimit-requests-remaining'] = '0'
      headers['anthropic-ratelimit-requests-reset'] = new Date(now + waitMs).toISOString()
    } else {
      headers['x-ratelimit-limit-requests'] = String(limit.requests)
      headers['x-ratelimit-remaining-requests'] = '0'
      headers['x-ratelimit-reset-requests'] = goDuration(waitMs)
    }
  }
  return { status: 429, body, headers }
}

/** Overload statuses in turn: Anthropic's own 529 first, then the generic ones. */
const OVERLOAD_STATUSES: Record<Api, readonly number[]> = {
  anthropic: [529, 500, 503],
  openai: [503, 500],
}

export function overloadReply(api: Api, pick: number): ErrorReply {
  const statuses = OVERLOAD_STATUSES[api]
  const status = statuses[Math.floor(pick * statuses.length)] ?? 500
  if (status === 529)
    return {
      status,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      headers: {},
    }
  if (status === 503) {
    const body = errorBody(api, 'server-error')
    ;(body.error as Json).message = 'The server is overloaded or not ready yet.'
    return { status, body, headers: {} }
  }
  return { status, body: errorBody(api, 'server-error'), headers: {} }
}

/** Ollama's words for a model without tool calling. */
export function toolsRefusal(api: Api, model: string): ErrorReply {
  return {
    status: 400,
    body: errorBody(
      api,
      'bad-request',
      `registry.ollama.ai/library/${model} does not support tools`,
    ),
    headers: {},
  }
}
