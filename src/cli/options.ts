/**
 * Command lines from one table. Each option is one entry (its name, the kind
 * of value it takes, its default, its help and its check), and parsing,
 * `--help` and the errors all come from that table: adding an option is
 * adding an entry.
 *
 * A mistake is a UsageError: one line (with the closest option for a
 * misspelled one) that the program prints before exiting with EXIT_USAGE,
 * never a stack trace.
 *
 *   const TABLE = {
 *     port: option({ arg: 'PORT', help: 'where to listen', parse: port, default: 8080 }),
 *     peer: list({ arg: 'ADDR', help: 'dial this peer (repeatable)', parse: text }),
 *     quiet: flag('print only errors'),
 *   }
 *   const command = parseOptions(TABLE, process.argv.slice(2))
 *   // { kind: 'help' } | { kind: 'run', values: { port: number, peer: string[], quiet: boolean } }
 *
 * Pure: argv comes in, values come out; nothing is read or printed here.
 */
import { parseArgs } from 'node:util'

/** A mistake on the command line: printed as one line, exit code EXIT_USAGE. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** Exit code for a usage mistake (the convention of getopt tools and Node's own CLI). */
export const EXIT_USAGE = 2

/** Turns an option's text into its value, or throws a UsageError naming the option. */
export type Parse<T> = (raw: string, option: string) => T

/** One entry of a table. Made by flag(), option() or list(); T is the parsed value. */
export interface Option<T> {
  /** what the value is in --help (PORT, DIR); none for an on/off flag */
  readonly arg?: string
  readonly help: string
  readonly short?: string
  /** repeatable: every occurrence is kept, in order */
  readonly multiple?: boolean
  /** the value when the option is not given */
  readonly fallback: T
  /** the default as --help shows it; none for a flag (off unless given) */
  readonly shownDefault?: string
  readonly parse?: Parse<unknown>
}

export type OptionTable = Record<string, Option<unknown>>

/** The parsed values of a table: one property per option, of its entry's type. */
export type OptionValues<S extends OptionTable> = {
  -readonly [K in keyof S]: S[K] extends Option<infer T> ? T : never
}

export type ParsedCommand<S extends OptionTable> =
  { kind: 'help' } | { kind: 'run'; values: OptionValues<S> }

/** An on/off option, off unless given. */
export function flag(help: string, init: { short?: string } = {}): Option<boolean> {
  return { help, fallback: false, ...init }
}

interface ValueInit<T> {
  arg: string
  help: string
  parse: Parse<T>
  short?: string
}

/**
 * An option with a value. With `default`, the value is always there; without,
 * `shownDefault` says in --help what happens when it is not given.
 */
export function option<T>(init: ValueInit<T> & { default: T; shownDefault?: string }): Option<T>
export function option<T>(init: ValueInit<T> & { shownDefault: string }): Option<T | undefined>
export function option<T>(
  init: ValueInit<T> & { default?: T; shownDefault?: string },
): Option<T | undefined> {
  const { default: fallback, ...rest } = init
  return { ...rest, fallback, shownDefault: init.shownDefault ?? String(fallback) }
}

/** A repeatable option: each `--name VALUE` adds one value; none given is []. */
export function list<T>(init: ValueInit<T> & { shownDefault?: string }): Option<T[]> {
  return { ...init, multiple: true, fallback: [], shownDefault: init.shownDefault ?? 'none' }
}

/** `--name must be <expected>, got "<raw>"`: the wording of every bad value. */
export function badValue(option: string, expected: string, raw: string): UsageError {
  return new UsageError(`--${option} must be ${expected}, got "${raw}"`)
}

/** Any text but an empty one. */
export const text: Parse<string> = (raw, name) => {
  if (!raw.trim()) throw new UsageError(`--${name} must not be empty`)
  return raw
}

/** A TCP port; 0 lets the system pick a free one. */
export const port: Parse<number> = (raw, name) => {
  const n = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || n > 65535)
    throw badValue(name, 'a port number (0 to 65535)', raw)
  return n
}

/** Parses argv (without node and the script) by the table; throws UsageError. */
export function parseOptions<S extends OptionTable>(table: S, argv: string[]): ParsedCommand<S> {
  const config: NonNullable<Parameters<typeof parseArgs>[0]>['options'] = {
    help: { type: 'boolean', short: 'h' },
  }
  for (const [name, spec] of Object.entries(table)) {
    config[name] = {
      type: spec.arg === undefined ? 'boolean' : 'string',
      ...(spec.multiple ? { multiple: true } : {}),
      ...(spec.short !== undefined ? { short: spec.short } : {}),
    }
  }
  let raw: Record<string, string | boolean | (string | boolean)[] | undefined>
  try {
    raw = parseArgs({ args: argv, options: config, strict: true, allowPositionals: false }).values
  } catch (err) {
    throw usageErrorFrom(err, Object.keys(config))
  }
  if (raw.help) return { kind: 'help' }
  const values: Record<string, unknown> = {}
  for (const [name, spec] of Object.entries(table)) {
    const given = raw[name]
    const parse = (s: string | boolean) =>
      typeof s === 'string' && spec.parse ? spec.parse(s, name) : s
    values[name] =
      given === undefined ? spec.fallback : Array.isArray(given) ? given.map(parse) : parse(given)
  }
  return { kind: 'run', values: values as OptionValues<S> }
}

/** Widest option column in --help before the help text moves to the next line. */
const HELP_COLUMN = 24
/** --help lines wrap here: a classic terminal's width. */
const HELP_WIDTH = 80

/** The "Options:" lines of --help: every option with its value, help and default. */
export function formatOptions(table: OptionTable): string {
  const rows: [string, string][] = Object.entries(table).map(([name, spec]) => [
    `${spec.short !== undefined ? `-${spec.short}, ` : ''}--${name}${spec.arg !== undefined ? ` ${spec.arg}` : ''}`,
    spec.shownDefault === undefined ? spec.help : `${spec.help} (default ${spec.shownDefault})`,
  ])
  rows.push(['-h, --help', 'print this help and exit'])
  return formatRows(rows)
}

/**
 * Two columns as --help shows them: a name on the left, its text wrapped on
 * the right (a name too wide for the column puts its text on the next line).
 */
export function formatRows(rows: readonly (readonly [string, string])[]): string {
  const column = Math.min(HELP_COLUMN, Math.max(...rows.map(([left]) => left.length)) + 2)
  return rows
    .flatMap(([left, help]) => {
      const lines = wrap(help, HELP_WIDTH - column - 2)
      const first =
        left.length + 2 <= column
          ? [`  ${left.padEnd(column)}${lines.shift() ?? ''}`]
          : [`  ${left}`]
      return [...first, ...lines.map((line) => `  ${' '.repeat(column)}${line}`)]
    })
    .join('\n')
}

function wrap(words: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of words.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  if (line) lines.push(line)
  return lines
}

/**
 * Node's parseArgs errors as one line, with the closest known option for an
 * unknown one: `Unknown option '--prot' (did you mean --port?)`.
 */
export function usageErrorFrom(err: unknown, known: readonly string[]): UsageError {
  const message = (err as Error).message.split('\n')[0]!
  const unknown = /^Unknown option '--([^'=]+)'/.exec(message)?.[1]
  if (unknown === undefined) return new UsageError(message)
  const near = closestOption(unknown, known)
  return new UsageError(
    `Unknown option '--${unknown}'${near === undefined ? '' : ` (did you mean --${near}?)`}`,
  )
}

/**
 * The known option a misspelled one most likely meant: the only one it is a
 * prefix of, or the nearest by edit distance (a swap of two neighbouring
 * letters counts as one edit) when that is small for its length. Undefined
 * when nothing is close: a wild guess helps less than none.
 */
export function closestOption(word: string, known: readonly string[]): string | undefined {
  const typed = word.toLowerCase()
  const prefixed = known.filter((name) => name.startsWith(typed))
  if (prefixed.length === 1) return prefixed[0]
  let best: string | undefined
  let bestDistance = Math.max(1, Math.floor(typed.length / 3))
  for (const name of known) {
    const d = editDistance(typed, name)
    if (d <= bestDistance && (best === undefined || d < bestDistance)) {
      best = name
      bestDistance = d
    }
  }
  return best
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1)
      d[i]![j] = v
    }
  }
  return d[a.length]![b.length]!
}
