/**
 * What a headless agent says as it works, one line each, each once and
 * when it happens: its role's activity entries (claims, splits, scores,
 * results, and each wait before an LLM call tries again, with its cause and
 * length, said as the wait starts: retry-notice.ts), a call that failed for
 * good (from the call reports the runtime emits, the same ones --log-calls
 * writes whole); and only the network's warnings, without the JSON of
 * their fields (the chatter of links and syncs goes to DEBUG).
 *
 * Pure: entries and reports in, lines out; the logger's only state is what
 * it said recently, so a warning repeated by every link is said once a minute.
 */
import type { CallEntry } from '../runtime/call-log'
import type { ActivityEntry, ActivityEvent } from '../runtime/types'
import { debugLog, type NetLogger } from '../net/log'
import { clock } from './observer-print'

/** Longest error text on a line; --log-calls has it whole. */
const MAX_ERROR = 160
/**
 * The same network warning is said at most once in this long (with how many
 * times it happened meanwhile): a flapping peer must not fill the terminal.
 */
export const NET_WARNING_REPEAT_MS = 60_000

function clip(text: string, max = MAX_ERROR): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

/** One activity entry, stamped with the time it happened. */
export function activityLine(entry: ActivityEvent): string {
  return `${clock(entry.at)} ${entry.text}`
}

/**
 * What the activity list held before the terminal listened, oldest first:
 * said once at start (a merged entry with how many times it happened).
 */
export function earlierLines(recent: readonly ActivityEntry[]): string[] {
  return [...recent]
    .reverse()
    .map((entry) => `${activityLine(entry)}${entry.count > 1 ? ` (×${entry.count})` : ''}`)
}

/**
 * What one finished LLM call adds to what was said while it ran: nothing
 * when it went through (its waits and retries were said as they started),
 * and one line when it failed for good, with why.
 */
export function callLines(entry: CallEntry): string[] {
  const lines: string[] = []
  // each call of the person's own tools (issue 57): which, how it went, how long; --log-calls has it whole
  for (const call of entry.toolCalls ?? []) {
    const how = call.status === 'ok' ? 'answered' : call.status === 'refused' ? 'refused' : 'failed'
    lines.push(
      `${entry.kind}: tool ${call.group}/${call.tool} ${clip(call.input)}: ${how} in ${call.durationMs} ms`,
    )
  }
  if (entry.ok) return lines
  const requests = entry.attempts.length
  const seconds = (entry.latencyMs / 1000).toFixed(1)
  // a rate limit not waited out says why (wait-policy.ts: "gave up: … would pass the 120 s …")
  const refusedWait = entry.attempts.at(-1)?.notes?.find((note) => note.startsWith('gave up'))
  lines.push(
    `${entry.kind}: gave up after ${requests} request${requests === 1 ? '' : 's'} (${seconds} s): ${clip(entry.error ?? 'no reason given')}${refusedWait ? ` (${clip(refusedWait)})` : ''}`,
  )
  return lines
}

/**
 * The network layer's logger for a terminal: warnings and errors as one
 * short line (the peer's id tail when the fields name one), each kind at
 * most once a NET_WARNING_REPEAT_MS; info and debug lines only to
 * DEBUG=murmuration:net.
 */
export function terminalNetLogger(
  write: (line: string) => void,
  now: () => number = Date.now,
): NetLogger {
  const debug = debugLog('net')
  const last = new Map<string, { at: number; missed: number }>()
  const trace = (msg: string, fields?: Record<string, unknown>) => {
    if (debug.enabled) debug('%s %s', msg, fields ? JSON.stringify(fields) : '')
  }
  const say = (level: string, msg: string, fields?: Record<string, unknown>) => {
    trace(`${level}: ${msg}`, fields)
    const seen = last.get(msg)
    const at = now()
    if (seen && at - seen.at < NET_WARNING_REPEAT_MS) {
      seen.missed++
      return
    }
    const peer = typeof fields?.peer === 'string' ? ` (peer …${fields.peer.slice(-6)})` : ''
    const again = seen?.missed ? ` (${seen.missed} more since)` : ''
    last.set(msg, { at, missed: 0 })
    write(`net ${level}: ${msg}${peer}${again}`)
  }
  return {
    debug: (msg, fields) => trace(msg, fields),
    info: (msg, fields) => trace(msg, fields),
    warn: (msg, fields) => say('warning', msg, fields),
    error: (msg, fields) => say('error', msg, fields),
  }
}
