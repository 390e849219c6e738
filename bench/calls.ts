/**
 * The LLM call timeline: a fetch wrapper that records when each LLM request
 * started and ended (or was aborted), for the swarm's peers and for the
 * central orchestrator alike. It wraps the real fetch the provider uses, so
 * the measured path is the real one (Vercel AI SDK over HTTP to the mock).
 *
 * Request bodies are kept as-is while running and parsed only afterwards
 * (`describeCalls`), so the wrapper adds nothing measurable to a call.
 */
import type { Capability, LlmTaskKind } from '../src/llm/types'
import { recogniseTask } from '../test/mock-llm/answers'
import { parseOpenAi } from '../test/mock-llm/wire'

export interface RawCall {
  /** who made it: a peer index, or -1 for the central orchestrator */
  peer: number
  start: number
  end: number
  /** 'ok': an HTTP answer arrived; 'aborted': the caller dropped it; 'error': no answer */
  status: 'ok' | 'aborted' | 'error'
  body: string
  /** why a call got no answer */
  error?: string
  /** the answer's token counts (its usage), once read */
  tokens?: { input: number; output: number }
  /** the HTTP status of the answer (a persona's 429s and 5xx are calls too) */
  httpStatus?: number
}

export interface LlmCall {
  peer: number
  kind: LlmTaskKind | 'unknown'
  /** the goal the call is about: its path from the root, joined */
  goal: string
  /** depth of that goal (root = 0) */
  depth: number
  /** for execute: the leaf's text; for score: the proposal's rationale */
  item: string | null
  /** decompose and score: what the room's executors offer, as the prompt said it (none: not said) */
  room?: Capability[]
  start: number
  end: number
  status: RawCall['status']
  error?: string
  tokens?: { input: number; output: number }
  httpStatus?: number
}

export const PATH_SEPARATOR = ' › '

export class CallRecorder {
  readonly calls: RawCall[] = []

  /** A fetch that records every call made through it on behalf of `peer`. */
  fetchFor(peer: number): typeof fetch {
    return async (input, init) => {
      const start = Date.now()
      const body = typeof init?.body === 'string' ? init.body : ''
      const call: RawCall = { peer, start, end: start, status: 'error', body }
      this.calls.push(call)
      try {
        const res = await fetch(input, init)
        call.status = 'ok'
        call.httpStatus = res.status
        // the usage the answer reports, read from a copy so the caller's body is untouched
        void res
          .clone()
          .json()
          .then((body: { usage?: { prompt_tokens?: number; completion_tokens?: number } }) => {
            if (body.usage)
              call.tokens = {
                input: body.usage.prompt_tokens ?? 0,
                output: body.usage.completion_tokens ?? 0,
              }
          })
          .catch(() => {}) // aborted or not JSON: no count
        return res
      } catch (error) {
        call.status = init?.signal?.aborted ? 'aborted' : 'error'
        if (call.status === 'error') call.error = errorText(error)
        throw error
      } finally {
        call.end = Date.now()
      }
    }
  }
}

function errorText(error: unknown): string {
  const err = error as { message?: string; cause?: { message?: string; code?: string } }
  const cause = err.cause ? ` (${err.cause.code ?? ''} ${err.cause.message ?? ''})` : ''
  return `${err.message ?? String(error)}${cause}`.slice(0, 200)
}

export function describeCall(raw: RawCall): LlmCall {
  let task: ReturnType<typeof recogniseTask>
  try {
    const parsed = parseOpenAi(JSON.parse(raw.body) as Record<string, unknown>)
    task = recogniseTask(parsed.system, parsed.prompt, parsed.schemaName)
  } catch {
    task = undefined
  }
  const base = {
    peer: raw.peer,
    start: raw.start,
    end: raw.end,
    status: raw.status,
    ...(raw.error ? { error: raw.error } : {}),
    ...(raw.tokens ? { tokens: raw.tokens } : {}),
    ...(raw.httpStatus !== undefined ? { httpStatus: raw.httpStatus } : {}),
  }
  if (!task) return { ...base, kind: 'unknown', goal: '', depth: -1, item: null }
  const item = task.kind === 'execute' ? task.task : task.kind === 'score' ? task.rationale : null
  const room =
    task.kind === 'decompose' || task.kind === 'score' ? task.roomCapabilities : undefined
  return {
    ...base,
    ...(room ? { room } : {}),
    kind: task.kind,
    goal: task.path.join(PATH_SEPARATOR),
    depth: task.path.length - 1,
    item,
  }
}

export function describeCalls(raw: readonly RawCall[]): LlmCall[] {
  return raw.map(describeCall)
}

export const KINDS: readonly LlmTaskKind[] = ['decompose', 'score', 'execute', 'rollup']

export type KindCounts = Record<LlmTaskKind, number>

export function emptyCounts(): KindCounts {
  return { decompose: 0, score: 0, execute: 0, rollup: 0 }
}

/** Calls made (HTTP requests sent), by kind; aborted ones included. */
export function countByKind(
  calls: readonly LlmCall[],
  filter?: (call: LlmCall) => boolean,
): KindCounts {
  const counts = emptyCounts()
  for (const call of calls) {
    if (call.kind === 'unknown' || (filter && !filter(call))) continue
    counts[call.kind]++
  }
  return counts
}

/** Requests the provider refused (429, 5xx, 4xx): under a persona, each is a retry. */
export function countRefused(calls: readonly LlmCall[]): number {
  return calls.filter((call) => call.httpStatus !== undefined && call.httpStatus >= 400).length
}

/** Tokens of every answered call (input, output, total), as the answers' usage reports them. */
export function countTokens(calls: readonly LlmCall[]) {
  let input = 0
  let output = 0
  for (const call of calls) {
    input += call.tokens?.input ?? 0
    output += call.tokens?.output ?? 0
  }
  return { input, output, total: input + output }
}
