/**
 * Exponential backoff with ±25 % jitter, so peers that failed together do not
 * retry together. `attempt` counts from 1.
 */
export function backoff(attempt: number, initialMs: number, maxMs: number): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt - 1))
  return Math.round(base * (0.75 + Math.random() * 0.5))
}
