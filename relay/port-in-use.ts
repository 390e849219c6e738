/**
 * A port already taken, said in one line: `npm start` and `npm run relay`
 * exit with EXIT_USAGE and name the port and the option that moves it,
 * instead of a stack trace from libp2p or node:net (docs/guide/commands.md: "a mistake is
 * one line and exit code 2").
 */
import { EXIT_USAGE } from '../src/cli/options'

/** The address of an EADDRINUSE error, wherever it hides (a cause, an AggregateError, a message). */
export function portInUse(err: unknown, depth = 0): string | null {
  if (depth > 5 || err === null || typeof err !== 'object') return null
  const e = err as { code?: unknown; address?: unknown; port?: unknown; message?: unknown }
  if (e.code === 'EADDRINUSE' && e.port !== undefined)
    return `${String(e.address)}:${String(e.port)}`
  const text = typeof e.message === 'string' ? e.message : ''
  const named = /EADDRINUSE[^\n]*?(\[?[\w.:]+\]?:\d+)/.exec(text)?.[1]
  if (named) return named
  for (const inner of [
    (err as { cause?: unknown }).cause,
    ...((err as { errors?: unknown[] }).errors ?? []),
  ]) {
    const found = portInUse(inner, depth + 1)
    if (found) return found
  }
  return text.includes('EADDRINUSE') ? 'a port' : null
}

/** The one line for a taken port: which, and what to do. */
export function portInUseLine(address: string, options: string): string {
  return `${address} is already in use (another Murmuration still running?); stop it or pick another port with ${options}`
}

/**
 * While a server starts listening: a taken port, thrown or emitted as an
 * 'error' nobody listens for (node:net does that), ends the process with
 * one line and EXIT_USAGE. Returns the function that ends the watch once
 * everything listens.
 */
export function exitOnPortInUse(prefix: string, options: string): () => void {
  const onError = (err: unknown) => {
    const address = portInUse(err)
    if (address === null) {
      // not ours to explain: as Node would have ended it
      console.error(err)
      process.exit(1)
    }
    process.stderr.write(`${prefix}: ${portInUseLine(address, options)}\n`)
    process.exit(EXIT_USAGE)
  }
  process.on('uncaughtException', onError)
  process.on('unhandledRejection', onError)
  return () => {
    process.off('uncaughtException', onError)
    process.off('unhandledRejection', onError)
  }
}

/** Awaits a server's start; a taken port is one line and EXIT_USAGE (other errors are thrown). */
export async function listening<T>(start: Promise<T>, prefix: string, options: string): Promise<T> {
  try {
    return await start
  } catch (err) {
    const address = portInUse(err)
    if (address === null) throw err
    process.stderr.write(`${prefix}: ${portInUseLine(address, options)}\n`)
    process.exit(EXIT_USAGE)
  }
}
