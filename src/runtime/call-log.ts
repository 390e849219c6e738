/**
 * The call log: every LLM call this peer made, as the call inspector shows
 * it (issue 27). It is the peer's own and nobody else's: kept in the tab
 * (IndexedDB, call-log.browser.ts) or written where a headless agent was
 * told to (call-log.node.ts), never gossiped, never sent anywhere.
 *
 * Pure: entries in, a bounded log out. Entries are made without the API
 * key: every string the key (or its JSON-escaped form) appears in is
 * redacted before the entry is kept, whatever field it hides in.
 */
import type { LlmCallAttempt, LlmCallReport } from '../llm/call-report'
import type { LlmTaskKind } from '../llm/types'

/**
 * Calls kept: a few goals' worth (a depth-3 plan costs one peer a few dozen
 * calls), enough to look back at what went wrong, small enough to list.
 */
export const MAX_CALLS = 200
/**
 * Characters kept in all (about as many bytes for the English text of
 * prompts): a bound on the tab's IndexedDB use and on what a list renders,
 * whatever the size of the prompts. Oldest entries go first.
 */
export const MAX_LOG_CHARS = 4_000_000
/**
 * One prompt, reply or error longer than this is clipped (with a note
 * saying how much was cut): a single huge roll-up cannot take the whole log.
 */
export const MAX_TEXT_CHARS = 100_000
/** Keys shorter than this are not looked for: redacting "a" would mangle every text. */
const MIN_SECRET_CHARS = 8
/** What an API key found in a call's text becomes. */
export const REDACTED = '[API key removed]'

export interface CallEntry extends LlmCallReport {
  /** unique in this peer's log */
  id: string
  /** the root goal the call worked for, when known */
  goal: string | null
  /** the plan node it was for: a goal (decompose, classify), a proposal (score) or a task */
  node: string | null
  /** the call's cost in US dollars; null when the model's price is unknown */
  costUsd: number | null
}

export interface CallContext {
  id: string
  goal: string | null
  node: string | null
  costUsd: number | null
  /** strings that must not appear in the entry (the API key the call was made with) */
  secrets: readonly (string | undefined)[]
}

export interface CallLog {
  /** newest first */
  readonly entries: readonly CallEntry[]
  /** JSON characters of all entries, for MAX_LOG_CHARS */
  readonly chars: number
}

export interface CallLogLimits {
  maxCalls: number
  maxChars: number
}

export const DEFAULT_CALL_LOG_LIMITS: CallLogLimits = {
  maxCalls: MAX_CALLS,
  maxChars: MAX_LOG_CHARS,
}

export const EMPTY_CALL_LOG: CallLog = { entries: [], chars: 0 }

function clip(text: string): string {
  if (text.length <= MAX_TEXT_CHARS) return text
  return `${text.slice(0, MAX_TEXT_CHARS)}\n… [${text.length - MAX_TEXT_CHARS} more characters not kept]`
}

function clipAttempt(attempt: LlmCallAttempt): LlmCallAttempt {
  return {
    ...attempt,
    prompt: clip(attempt.prompt),
    ...(attempt.system === undefined ? {} : { system: clip(attempt.system) }),
    ...(attempt.reply === undefined ? {} : { reply: clip(attempt.reply) }),
    ...(attempt.error === undefined ? {} : { error: clip(attempt.error) }),
  }
}

/**
 * Removes every secret from a JSON-safe value: the value's JSON text is
 * searched both for the secret and for its JSON-escaped form, so no field,
 * nested or not, can keep it.
 */
export function redact<T>(value: T, secrets: readonly (string | undefined)[]): T {
  let json = JSON.stringify(value)
  for (const secret of secrets) {
    if (secret === undefined || secret.length < MIN_SECRET_CHARS) continue
    for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1)])) {
      json = json.split(form).join(REDACTED)
    }
  }
  return JSON.parse(json) as T
}

/** A finished call's report as a log entry: clipped, and without the key. */
export function callEntry(report: LlmCallReport, context: CallContext): CallEntry {
  const { secrets, ...where } = context
  const entry: CallEntry = {
    ...report,
    ...where,
    system: clip(report.system),
    attempts: report.attempts.map(clipAttempt),
    ...(report.error === undefined ? {} : { error: clip(report.error) }),
  }
  return redact(entry, secrets)
}

/** Entries never change once made: each one's size is measured once. */
const sizes = new WeakMap<CallEntry, number>()
function sizeOf(entry: CallEntry): number {
  let size = sizes.get(entry)
  if (size === undefined) sizes.set(entry, (size = JSON.stringify(entry).length))
  return size
}

function bounded(entries: CallEntry[], limits: CallLogLimits) {
  const kept: CallEntry[] = []
  const evicted: string[] = []
  let chars = 0
  for (const entry of entries) {
    const size = sizeOf(entry)
    if (kept.length < limits.maxCalls && chars + size <= limits.maxChars) {
      kept.push(entry)
      chars += size
    } else {
      evicted.push(entry.id)
    }
  }
  return { log: { entries: kept, chars }, evicted }
}

/**
 * Adds a new entry in front; drops the oldest ones past the limits (the
 * caller deletes `evicted` from storage). An entry larger than the whole
 * log's cap is not kept.
 */
export function addCall(
  log: CallLog,
  entry: CallEntry,
  limits: CallLogLimits = DEFAULT_CALL_LOG_LIMITS,
): { log: CallLog; evicted: string[] } {
  const rest = log.entries.filter((e) => e.id !== entry.id)
  return bounded([entry, ...rest], limits)
}

/** A log from stored entries, in any order: newest first, within the limits. */
export function restoreCallLog(
  stored: readonly CallEntry[],
  limits: CallLogLimits = DEFAULT_CALL_LOG_LIMITS,
): { log: CallLog; evicted: string[] } {
  const sorted = [...stored].sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? 1 : -1))
  return bounded(sorted, limits)
}

export type CallStatusFilter = 'all' | 'ok' | 'failed'

export interface CallFilter {
  kind: LlmTaskKind | 'all'
  status: CallStatusFilter
}

/** The entries a filter lets through, in the log's order (newest first). */
export function filterCalls(entries: readonly CallEntry[], filter: CallFilter): CallEntry[] {
  return entries.filter(
    (e) =>
      (filter.kind === 'all' || e.kind === filter.kind) &&
      (filter.status === 'all' || e.ok === (filter.status === 'ok')),
  )
}

/**
 * Where a peer keeps its call log across restarts: IndexedDB in a tab, a
 * JSON Lines file for a headless agent (--log-calls), nothing by default.
 */
export interface CallStore {
  /** every entry kept so far, in any order */
  load(): Promise<CallEntry[]>
  save(entry: CallEntry): Promise<void>
  /** drops entries the log no longer keeps (a file of record may keep them) */
  remove(ids: readonly string[]): Promise<void>
}
