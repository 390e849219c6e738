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
  const fmt = (msg: string) => `[${prefix}] ${msg}`
  return {
    debug: () => {},
    info: (msg, fields) => console.info(fmt(msg), fields ?? ''),
    warn: (msg, fields) => console.warn(fmt(msg), fields ?? ''),
    error: (msg, fields) => console.error(fmt(msg), fields ?? ''),
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
