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

/** Logs to the console with a prefix; debug lines are dropped. */
export function consoleLogger(prefix = 'net'): NetLogger {
  // fields as one JSON string: a browser console (and so a test reading it)
  // would otherwise show only a preview of the first few of them
  const fmt = (msg: string, fields?: Record<string, unknown>) =>
    `[${prefix}] ${msg}${fields ? ` ${fieldsText(fields)}` : ''}`
  return {
    debug: () => {},
    info: (msg, fields) => console.info(fmt(msg, fields)),
    warn: (msg, fields) => console.warn(fmt(msg, fields)),
    error: (msg, fields) => console.error(fmt(msg, fields)),
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
