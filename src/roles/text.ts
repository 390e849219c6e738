/** Small helpers for turning LLM output into record fields that pass the schemas. */
import type { LlmOutcome } from './llm-contract'
import { MAX_DETAIL } from '../protocol/limits'

/** Trim and cut to `max` characters (records reject untrimmed or oversized text). */
export function clip(text: string, max: number): string {
  const trimmed = text.trim()
  return trimmed.length <= max ? trimmed : trimmed.slice(0, max - 1).trimEnd() + '…'
}

export function failureDetail(outcome: LlmOutcome): string {
  return clip(
    outcome.ok ? 'output of the wrong kind' : outcome.error || 'LLM call failed',
    MAX_DETAIL,
  )
}
