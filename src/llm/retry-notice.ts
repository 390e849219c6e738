/**
 * A wait before an LLM call tries again, told as the wait starts
 * (RunTaskOptions.onRetry): its real cause (a 429 rate limit, a 503 or 529
 * overload, a 5xx server error, no answer, a reply the schema rejected),
 * its real length, and what comes after it. The role's activity list and
 * the agent's terminal say it at once, one line a wait (issue 56: they said
 * it when the call ended, two lines a wait, all stamped with the end's
 * time, and a 503 was called a rate limit). The call log keeps each attempt
 * whole, as before.
 *
 * Pure.
 */
import {
  LlmBadOutputError,
  LlmOverloadedError,
  LlmRateLimitError,
  LlmUnreachableError,
  type LlmError,
} from './errors'
import type { LlmTaskKind } from './types'

export type RetryCause =
  'rate-limit' | 'overloaded' | 'server-error' | 'unreachable' | 'rejected-reply' | 'other'

export interface LlmRetry {
  kind: LlmTaskKind
  cause: RetryCause
  /** the HTTP status the provider answered, when it answered one */
  status?: number
  /** how long this wait is, in ms */
  ms: number
  /** why this long, for a rate limit or overload: the provider's word, or our backoff */
  why?: string
  /** the attempt that comes after the wait, and how many there are in all */
  attempt: number
  maxAttempts: number
  /** the error that caused it, as the call log has it */
  error: string
}

/** Longest error text in a notice; the call log has it whole. */
const MAX_ERROR = 120

/** What kind of trouble an error is, for the person reading the notice. */
export function retryCause(error: LlmError): RetryCause {
  if (error instanceof LlmOverloadedError) return 'overloaded'
  if (error instanceof LlmRateLimitError) return 'rate-limit'
  if (error instanceof LlmBadOutputError) return 'rejected-reply'
  if (error instanceof LlmUnreachableError) return 'unreachable'
  if (error.status !== undefined && error.status >= 500) return 'server-error'
  return 'other'
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= MAX_ERROR ? flat : `${flat.slice(0, MAX_ERROR - 1)}…`
}

/** "14 s", "2.5 s", "0.3 s": as long as the wait really is. */
export function waitSeconds(ms: number): string {
  const s = ms / 1_000
  return `${Number.isInteger(s) || s >= 10 ? Math.ceil(s) : Math.max(0.1, Math.ceil(s * 10) / 10)} s`
}

/** One line for a wait, said when it starts: "score: rate limited (429): waiting 14 s (retry-after header: 14)". */
export function retryText(retry: LlmRetry): string {
  const status = retry.status === undefined ? '' : ` (${retry.status})`
  const wait = retry.ms > 0 ? `waiting ${waitSeconds(retry.ms)}` : 'trying again at once'
  const why = retry.why ? ` (${retry.why})` : ''
  const next = `then attempt ${retry.attempt} of ${retry.maxAttempts}`
  switch (retry.cause) {
    case 'rate-limit':
      // the provider's pace: the wait spends no attempt (wait-policy.ts)
      return `${retry.kind}: rate limited${status}: ${wait}${why}`
    case 'overloaded':
      return `${retry.kind}: provider overloaded${status}: ${wait}${why}`
    case 'server-error':
      return `${retry.kind}: server error${status}: ${clip(retry.error)}; ${wait}, ${next}`
    case 'unreachable':
      return `${retry.kind}: no answer from the provider: ${clip(retry.error)}; ${wait}, ${next}`
    case 'rejected-reply':
      return `${retry.kind}: reply rejected: ${clip(retry.error)}; ${wait}, ${next}`
    case 'other':
      return `${retry.kind}: call failed${status}: ${clip(retry.error)}; ${wait}, ${next}`
  }
}
