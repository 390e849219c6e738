import { describe, expect, it } from 'vitest'
import {
  closestOption,
  flag,
  formatOptions,
  list,
  option,
  parseOptions,
  port,
  text,
  UsageError,
} from './options'

const TABLE = {
  port: option({ arg: 'PORT', help: 'where to listen', parse: port, default: 8080 }),
  'http-port': option({
    arg: 'PORT',
    help: 'for /relay.json',
    parse: port,
    shownDefault: '--port + 1',
  }),
  peer: list({ arg: 'ADDR', help: 'dial this peer (repeatable)', parse: text }),
  quiet: flag('print only errors', { short: 'q' }),
}

function values(argv: string[]) {
  const command = parseOptions(TABLE, argv)
  if (command.kind !== 'run') throw new Error('expected run')
  return command.values
}

describe('parseOptions', () => {
  it('gives every option its default when nothing is given', () => {
    expect(values([])).toEqual({ port: 8080, 'http-port': undefined, peer: [], quiet: false })
  })

  it('parses each given value by its entry, keeping every repeat of a list', () => {
    expect(values(['--port', '0', '--http-port=9091', '--peer', 'a', '--peer', 'b', '-q'])).toEqual(
      { port: 0, 'http-port': 9091, peer: ['a', 'b'], quiet: true },
    )
  })

  it('answers --help and -h before checking any value', () => {
    expect(parseOptions(TABLE, ['--port', 'x', '--help'])).toEqual({ kind: 'help' })
    expect(parseOptions(TABLE, ['-h'])).toEqual({ kind: 'help' })
  })

  it.each([
    [['--prot', '1'], "Unknown option '--prot' (did you mean --port?)"],
    [['--http-prot=1'], "Unknown option '--http-prot' (did you mean --http-port?)"],
    [['--pe', 'x'], "Unknown option '--pe' (did you mean --peer?)"],
    [['--bogus'], "Unknown option '--bogus'"],
    [['--port', '65536'], '--port must be a port number (0 to 65535), got "65536"'],
    [['--port', '-1'], /argument missing|ambiguous/],
    [['--http-port', '1.5'], '--http-port must be a port number (0 to 65535), got "1.5"'],
    [['--peer', ' '], '--peer must not be empty'],
    [['--quiet=yes'], /does not take an argument/],
    [['stray'], /Unexpected argument 'stray'/],
  ])('%j is one line: %s', (argv, message) => {
    let error: unknown
    try {
      parseOptions(TABLE, argv)
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(UsageError)
    const line = (error as UsageError).message
    if (typeof message === 'string') expect(line).toBe(message)
    else expect(line).toMatch(message)
    expect(line).not.toContain('\n')
  })
})

describe('closestOption', () => {
  const known = ['host', 'port', 'relay-port', 'http-port', 'key-file', 'https', 'help']
  it.each([
    ['prot', 'port'],
    ['Port', 'port'],
    ['keyfile', 'key-file'],
    ['relay-prt', 'relay-port'],
    ['rel', 'relay-port'],
    ['htps', 'https'],
    ['hots', 'host'],
  ])('%s → %s', (typed, meant) => {
    expect(closestOption(typed, known)).toBe(meant)
  })

  it.each(['bogus', 'verbose', 'x', 'h'])('%s is close to nothing', (typed) => {
    expect(closestOption(typed, known)).toBeUndefined()
  })
})

describe('formatOptions', () => {
  it('lists every option with its value, help and default, and --help', () => {
    const help = formatOptions(TABLE)
    expect(help).toMatch(/^ {2}--port PORT +where to listen \(default 8080\)$/m)
    expect(help).toMatch(/^ {2}--http-port PORT +for \/relay\.json \(default --port \+ 1\)$/m)
    expect(help).toMatch(/^ {2}--peer ADDR +dial this peer \(repeatable\) \(default none\)$/m)
    expect(help).toMatch(/^ {2}-q, --quiet +print only errors$/m)
    expect(help).toMatch(/^ {2}-h, --help +print this help and exit$/m)
  })

  it('wraps long help under its own column, within 80 characters', () => {
    const help = formatOptions({ long: flag('word '.repeat(40).trim()) })
    const lines = help.split('\n')
    expect(lines.length).toBeGreaterThan(3)
    expect(lines.every((line) => line.length <= 80)).toBe(true)
    const column = lines[0]!.indexOf('word')
    expect(lines[0]).toMatch(/^ {2}--long +word/)
    const wrapped = lines.slice(1).filter((line) => line.includes('word'))
    expect(wrapped.length).toBeGreaterThan(1)
    expect(wrapped.every((line) => line.indexOf('word') === column)).toBe(true)
  })
})
