/**
 * How runLlmTask waits out a provider's rate limit or overload (issue 44).
 * A 429 or 529 is the provider's pace, not the task's failure: the wait
 * spends none of the task's attempts, so a provider that allows 3 requests
 * per 10 s slows a plan down but does not fail it. The wait is the
 * provider's own word when it gave one (backoff-signals.ts), else an
 * exponential backoff; it is bounded in all per call, and every wait is
 * written in the call log.
 *
 * Pure: the error and what was waited so far in, a decision out.
 */
import type { LlmRateLimitError } from './errors'
import { LlmOverloadedError } from './errors'

/**
 * The most one call waits for rate limits and overloads, in all. Hosted
 * providers' per-minute windows reset within 60 s, so two minutes rides out
 * a full window twice; a longer wait (a daily quota, a server down for
 * good) is reported as a rate limit, and the peer pauses (src/roles/model-health.ts).
 */
export const MAX_TOTAL_WAIT_MS = 120_000

/** Waits per call at most, so a provider saying "retry after 0" cannot make us spin. */
export const MAX_WAITS = 12

/** The longest backoff when the provider gave no wait: past half a minute, its window has surely moved. */
export const MAX_UNSIGNALLED_WAIT_MS = 30_000

/**
 * The shortest wait a provider's signal gets: reset times are rounded down
 * ("0s", "20ms" for a window that is nearly over), and a retry before the
 * window has moved only earns another 429.
 */
export const MIN_SIGNALLED_WAIT_MS = 250

/** Backoff multiplier per wait without a signal: the usual doubling. */
const WAIT_FACTOR = 2

/** `why`: where the wait's length came from ("retry-after header: 14", "no wait given; backing off") */
export type WaitDecision =
  { wait: true; ms: number; why: string; note: string } | { wait: false; note: string }

function seconds(ms: number): string {
  const s = ms / 1_000
  return `${Number.isInteger(s) || s >= 10 ? Math.ceil(s) : s.toFixed(1)} s`
}

/**
 * Whether to wait after this rate limit, and how long.
 * @param waits waits already made in this call
 * @param waitedMs ms already waited in this call
 * @param baseMs the first backoff when the provider says nothing (doubled per wait)
 */
export function rateLimitWait(
  error: LlmRateLimitError,
  waits: number,
  waitedMs: number,
  baseMs: number,
): WaitDecision {
  const what = error instanceof LlmOverloadedError ? 'overloaded' : 'rate limited'
  const signalled = error.retryAfterMs !== undefined
  const ms = Math.ceil(
    signalled
      ? Math.max(MIN_SIGNALLED_WAIT_MS, error.retryAfterMs!)
      : Math.min(MAX_UNSIGNALLED_WAIT_MS, baseMs * WAIT_FACTOR ** waits),
  )
  const why = signalled ? (error.retrySource ?? 'the provider said') : 'no wait given; backing off'
  if (waits >= MAX_WAITS)
    return { wait: false, note: `gave up: ${what} ${waits} times in this call (${why})` }
  if (waitedMs + ms > MAX_TOTAL_WAIT_MS)
    return {
      wait: false,
      note: `gave up: ${what}; waiting ${seconds(ms)} (${why}) would pass the ${seconds(MAX_TOTAL_WAIT_MS)} this call waits in all${waitedMs > 0 ? ` (${seconds(waitedMs)} waited already)` : ''}`,
    }
  return { wait: true, ms, why, note: `waited ${seconds(ms)}: ${what} (${why})` }
}
