/** Small helpers for turning LLM output into record fields that pass the schemas. */
import type { LlmErrorKind, LlmOutcome } from './llm-contract'
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
const SAFE_DETAIL: Record<LlmErrorKind, string> = {
  auth: 'the LLM provider rejected the API key',
  'not-found': 'model was not found (404)',
  unreachable: 'the LLM provider could not be reached',
  'rate-limit': 'the LLM provider is rate limiting',
  output: "the model's replies did not pass validation",
  other: 'the LLM call failed',
}

/**
 * The wire has no kind of its own for a model or address the server does not
 * know (version 7): it travels as 'other', its detail says which.
 */
const WIRE_KIND: Record<LlmErrorKind, FailureErrorKind> = {
  auth: 'auth',
  'not-found': 'other',
  unreachable: 'unreachable',
  'rate-limit': 'rate-limit',
  output: 'output',
  other: 'other',
}

/** Whose model a task kind's call was made with, for "the executor's model was not found". */
const ROLE_OF_TASK: Record<LlmOutcome['kind'], string> = {
  decompose: 'decomposer',
  score: 'scorer',
  execute: 'executor',
  rollup: 'executor',
}

/** A tool loop ended by this executor's budget cap (errorKind rate-limit: its own limit). */
export const BUDGET_STOPPED_DETAIL =
  "this executor's budget cap was reached during its tool steps, before the model answered"

export function failureFields(outcome: LlmOutcome): {
  errorKind: FailureErrorKind
  detail: string
} {
  const kind: LlmErrorKind = outcome.ok ? 'output' : outcome.errorKind
  const errorKind = WIRE_KIND[kind]
  // a tool loop its own budget ended says so: never a half-run without a word
  if (!outcome.ok && outcome.budgetStopped) return { errorKind, detail: BUDGET_STOPPED_DETAIL }
  const attempts = outcome.attempts > 1 ? ` (${outcome.attempts} attempts)` : ''
  const said =
    kind === 'not-found'
      ? `the ${ROLE_OF_TASK[outcome.kind]}'s ${SAFE_DETAIL[kind]}`
      : SAFE_DETAIL[kind]
  return { errorKind, detail: clip(`${said}${attempts}`, MAX_DETAIL) }
}

/**
 * A failure that speaks of this peer (its key, network, quota), not of the
 * work: the peer pauses (trackHealth), and the failure is no task attempt.
 */
export function isPeerTrouble(outcome: LlmOutcome): boolean {
  return !outcome.ok && PEER_TROUBLE_ERRORS.has(outcome.errorKind)
}
