/**
 * What a headless agent says about its LLM calls and its network, one line
 * each: a reply the schema rejected, a retry, a rate limit, a call that
 * failed for good (from the call reports the runtime emits, the same ones
 * --log-calls writes whole); and only the network's warnings, without the
 * JSON of their fields (the chatter of links and syncs goes to DEBUG).
 *
 * Pure: reports in, lines out; the logger's only state is what it said
 * recently, so a warning repeated by every link is said once a minute.
 */
import type { CallEntry } from '../runtime/call-log'
import { debugLog, type NetLogger } from '../net/log'

/** Longest error text on a line; --log-calls has it whole. */
const MAX_ERROR = 160
/**
 * The same network warning is said at most once in this long (with how many
 * times it happened meanwhile): a flapping peer must not fill the terminal.
 */
export const NET_WARNING_REPEAT_MS = 60_000

/** A call-report note about backing off: waiting, retrying, a rate limit. */
const BACK_OFF_NOTE = /\b(wait|waited|retry|retrying|rate.limit)/i

function clip(text: string, max = MAX_ERROR): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

/** The lines one finished LLM call prints: its troubles, not its successes. */
export function callLines(entry: CallEntry): string[] {
  const lines: string[] = []
  const attempts = entry.attempts.length
  entry.attempts.forEach((attempt, i) => {
    // what the LLM layer did about it, when that was to wait or try again (issue 44's
    // notes: "waited 20 s: rate limited …"); its other notes stay in --log-calls
    for (const note of attempt.notes ?? [])
      if (BACK_OFF_NOTE.test(note)) lines.push(`${entry.kind}: ${clip(note)}`)
    if (attempt.error === undefined) return
    const retried = i < attempts - 1
    const what =
      attempt.errorKind === 'rate-limit'
        ? 'rate limited by the provider'
        : attempt.errorKind === 'output'
          ? 'reply rejected'
          : 'call failed'
    const then = retried ? '; retried' : ''
    lines.push(
      `${entry.kind}: ${what} (attempt ${i + 1} of ${attempts}): ${clip(attempt.error)}${then}`,
    )
  })
  // each call of the person's own tools (issue 57): which, how it went, how long; --log-calls has it whole
  for (const call of entry.toolCalls ?? []) {
    const how = call.status === 'ok' ? 'answered' : call.status === 'refused' ? 'refused' : 'failed'
    lines.push(
      `${entry.kind}: tool ${call.group}/${call.tool} ${clip(call.input)}: ${how} in ${call.durationMs} ms`,
    )
  }
  if (!entry.ok) {
    const seconds = (entry.latencyMs / 1000).toFixed(1)
    lines.push(
      `${entry.kind}: gave up after ${attempts} attempt${attempts === 1 ? '' : 's'} (${seconds} s): ${clip(entry.error ?? 'no reason given')}`,
    )
  }
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
