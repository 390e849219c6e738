/** Small helpers for turning LLM output into record fields that pass the schemas. */
import type { LlmOutcome } from './llm-contract'
import { MAX_DETAIL } from '../protocol/limits'
import type { FailureRecord } from '../protocol/records'
import { PEER_TROUBLE_ERRORS } from '../protocol/rules'

/** Trim and cut to `max` characters (records reject untrimmed or oversized text). */
export function clip(text: string, max: number): string {
  const trimmed = text.trim()
  return trimmed.length <= max ? trimmed : trimmed.slice(0, max - 1).trimEnd() + '…'
}

type FailureErrorKind = FailureRecord['errorKind']

/**
 * What a failure record says: its error kind and a fixed message for that
 * kind. Never the provider's own text: it is gossiped to the whole room and
 * a provider's error can echo a masked key, a prompt or an account name.
 * The full text stays in this peer's activity log.
 */
const SAFE_DETAIL: Record<FailureErrorKind, string> = {
  auth: 'the LLM provider rejected the API key',
  unreachable: 'the LLM provider could not be reached',
  'rate-limit': 'the LLM provider is rate limiting',
  output: "the model's replies did not pass validation",
  other: 'the LLM call failed',
  none: 'no LLM call was made',
}

/** A tool loop ended by this executor's budget cap (errorKind rate-limit: its own limit). */
export const BUDGET_STOPPED_DETAIL =
  "this executor's budget cap was reached during its tool steps, before the model answered"

export function failureFields(outcome: LlmOutcome): {
  errorKind: FailureErrorKind
  detail: string
} {
  const errorKind: FailureErrorKind = outcome.ok ? 'output' : outcome.errorKind
  // a tool loop its own budget ended says so: never a half-run without a word
  if (!outcome.ok && outcome.budgetStopped) return { errorKind, detail: BUDGET_STOPPED_DETAIL }
  const attempts = outcome.attempts > 1 ? ` (${outcome.attempts} attempts)` : ''
  return { errorKind, detail: clip(`${SAFE_DETAIL[errorKind]}${attempts}`, MAX_DETAIL) }
}

/**
 * A failure that speaks of this peer (its key, network, quota), not of the
 * work: the peer pauses (trackHealth), and the failure is no task attempt.
 */
export function isPeerTrouble(outcome: LlmOutcome): boolean {
  return !outcome.ok && PEER_TROUBLE_ERRORS.has(outcome.errorKind)
}
