/**
 * Logging, the libp2p way: every module of ours writes to a debug logger
 * named `murmuration:<component>` (libp2p's own are `libp2p:*`), off by
 * default and switched on like libp2p's:
 *
 *   Node:     DEBUG='murmuration:*' npm run agent       (add ,libp2p:* for the stack)
 *   browser:  localStorage.debug = 'murmuration:*'      (then reload)
 *
 * The console keeps only what a person should see: warnings and errors,
 * and, where an operator watches a terminal (the relay), info lines.
 */
import { logger as libp2pLogger, type Logger } from '@libp2p/logger'

/** The namespace of every logger of ours, beside libp2p's `libp2p:*`. */
export const LOG_NAMESPACE = 'murmuration'

/** A debug logger for one component: `murmuration:<component>`, off unless enabled. */
export function debugLog(component: string): Logger {
  return libp2pLogger(`${LOG_NAMESPACE}:${component}`)
}

/**
 * The logger the network layer writes to. Structured: a short message and
 * optional fields, so a UI or a test can collect and filter lines.
 */
export interface NetLogger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}

export interface ConsoleLoggerInit {
  /**
   * Where info lines go: 'console' where an operator watches a terminal (the
   * relay: joins and leaves), 'debug' where they would be noise to a person
   * (a tab: every sync session and link). Default 'console'.
   */
  info?: 'console' | 'debug'
}

/** One line: the message, then its fields as JSON. */
function line(msg: string, fields?: Record<string, unknown>): string {
  return fields ? `${msg} ${fieldsText(fields)}` : msg
}

/**
 * Warnings and errors to the console with a prefix, debug lines (and info
 * lines, when asked) to `murmuration:<prefix>`; every line goes to the
 * debug logger too, so a DEBUG trace has the whole story in order.
 */
export function consoleLogger(prefix = 'net', init: ConsoleLoggerInit = {}): NetLogger {
  const log = debugLog(prefix)
  const infoToConsole = (init.info ?? 'console') === 'console'
  // fields as one JSON string: a browser console (and so a test reading it)
  // would otherwise show only a preview of the first few of them
  const fmt = (msg: string, fields?: Record<string, unknown>) => `[${prefix}] ${line(msg, fields)}`
  const trace = (level: string, msg: string, fields?: Record<string, unknown>) => {
    if (log.enabled) log('%s%s', level, line(msg, fields))
  }
  return {
    debug: (msg, fields) => trace('', msg, fields),
    info: (msg, fields) => {
      trace('', msg, fields)
      if (infoToConsole) console.info(fmt(msg, fields))
    },
    warn: (msg, fields) => {
      trace('warning: ', msg, fields)
      console.warn(fmt(msg, fields))
    },
    error: (msg, fields) => {
      trace('error: ', msg, fields)
      console.error(fmt(msg, fields))
    },
  }
}

/**
 * A NetLogger that writes people's lines (info and up) to `write`, and
 * debug lines to `murmuration:<component>`: the headless agent's console.
 */
export function lineLogger(write: (line: string) => void, component = 'net'): NetLogger {
  const log = debugLog(component)
  return {
    debug: (msg, fields) => {
      if (log.enabled) log('%s', line(msg, fields))
    },
    info: (msg, fields) => write(line(msg, fields)),
    warn: (msg, fields) => write(`warning: ${line(msg, fields)}`),
    error: (msg, fields) => write(`error: ${line(msg, fields)}`),
  }
}

/** Log fields as one line of JSON; never throws (BigInt as text, a cycle as the key names). */
export function fieldsText(fields: Record<string, unknown>): string {
  try {
    return JSON.stringify(fields, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v))
  } catch {
    return String(Object.keys(fields)) // circular: a log line must never throw
  }
}

/** Discards everything. */
export const silentLogger: NetLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
}

/** A short description of anything thrown, for a log field. */
export function errMsg(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`
  return String(err)
}
