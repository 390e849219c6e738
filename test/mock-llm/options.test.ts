/**
 * `npm run mock-llm`'s command line: --help lists its options and every
 * persona with what it does; a mistake is one line and exit code 2, never
 * a parseArgs stack trace (issue 56). In process for the table, and the
 * command itself as a child process, as `npm run mock-llm` runs it.
 */
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/cli/options'
import { DEFAULT_PORT, MOCK_OPTIONS, MOCK_USAGE, parseMockArgs } from './options'
import { PERSONA_NAMES, PERSONAS } from './personas'

function mockLlm(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/mock-llm/main.ts', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('exit', (code) => done({ code, stdout, stderr }))
  })
}

describe('the mock LLM command line', () => {
  it('reads every option into the server settings, with the documented defaults', () => {
    expect(parseMockArgs([])).toEqual({
      kind: 'run',
      command: {
        server: expect.objectContaining({
          port: DEFAULT_PORT,
          host: '127.0.0.1',
          latencyMs: 1000,
          mode: 'offline',
          keys: undefined,
        }),
        quiet: false,
        requestsLog: undefined,
      },
    })
    const parsed = parseMockArgs([
      ...['--persona', 'overloaded', '--time-scale', '0.1', '--seed', '7', '--port', '0'],
      ...['--keys', 'a, b', '--mode', 'shape', '--branching', '4', '--quiet'],
    ])
    expect(parsed).toMatchObject({
      kind: 'run',
      command: {
        server: { persona: 'overloaded', timeScale: 0.1, seed: 7, port: 0, keys: ['a', 'b'] },
        quiet: true,
      },
    })
    expect(parsed.kind === 'run' && parsed.command.server).toMatchObject({
      mode: 'shape',
      branching: 4,
    })
    expect(parseMockArgs(['--help'])).toEqual({ kind: 'help' })
  })

  it('says a mistake in one line naming the option', () => {
    const mistakes: [string[], RegExp][] = [
      [['--bogus'], /^Unknown option '--bogus'$/],
      [['--prot', '1'], /did you mean --port\?/],
      [['--persona', 'thinky'], /^--persona must be one of think, chatty, .*got "thinky"$/],
      [['--time-scale', '0'], /^--time-scale must be a number above 0, got "0"$/],
      [['--score', '2'], /^--score must be a number between 0 and 1/],
      [['--branching', '9'], /^--branching must be a number between 2 and 6/],
      [['--mode', 'real'], /^--mode must be one of offline, shape/],
    ]
    for (const [args, message] of mistakes) {
      expect(() => parseMockArgs(args), args.join(' ')).toThrow(UsageError)
      expect(() => parseMockArgs(args)).toThrow(message)
    }
  })

  it('--help lists every option and every persona with what it does', () => {
    for (const name of Object.keys(MOCK_OPTIONS)) expect(MOCK_USAGE).toContain(`--${name}`)
    const personas = MOCK_USAGE.slice(MOCK_USAGE.indexOf('Personas'))
    for (const name of PERSONA_NAMES) {
      const firstWords = PERSONAS[name].summary.split(' ').slice(0, 3).join(' ')
      expect(personas).toMatch(new RegExp(`\\n  ${name} +${escape(firstWords)}`))
    }
    expect(MOCK_USAGE).toMatch(/\nExamples:\n {2}npm run mock-llm -- /)
  })

  it('as a command: --help exits 0 with the usage; a bad option is one line on stderr, exit 2', async () => {
    const [help, bad, value] = await Promise.all([
      mockLlm(['--help']),
      mockLlm(['--bogus']),
      mockLlm(['--persona', 'nope']),
    ])
    expect(help.code).toBe(0)
    expect(help.stdout.trim()).toBe(MOCK_USAGE)
    for (const run of [bad, value]) {
      expect(run.code).toBe(2)
      expect(run.stdout).toBe('')
      const lines = run.stderr.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^mock-llm: .*; npm run mock-llm -- --help lists every option$/)
    }
    expect(bad.stderr).toContain("Unknown option '--bogus'")
    expect(value.stderr).toContain('--persona must be one of')
  }, 30_000)
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
