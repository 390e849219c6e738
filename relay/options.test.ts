/**
 * `npm start` and `npm run relay` command lines: the tables' parsing, and the
 * programs as a person runs them (--help, a mistake: one line, exit 2).
 */
import { spawnSync } from 'node:child_process'
import { DEFAULT_FALLBACK_LIMITS } from './fallback'
import { describe, expect, it } from 'vitest'
import { START_ENTRY } from '../scripts/build-cli.mjs'
import { EXIT_USAGE } from '../src/cli/options'
import { DEFAULT_RELAY_KEY_FILE, DEFAULT_RELAY_PORT } from './defaults'
import {
  fallbackLimitsFrom,
  parseRelayArgs,
  parseStartArgs,
  RELAY_OPTIONS,
  RELAY_USAGE,
  START_OPTIONS,
  START_USAGE,
} from './options'

/** `npm run relay` as package.json runs it, and relay/start.ts built, as `npm start` runs it */
const RELAY = ['--import', './scripts/node-preload.mjs', 'scripts/relay.mjs']
const START = ['--import', './scripts/node-preload.mjs', START_ENTRY]

/** runs a program as its npm script does; everything it printed, and how it ended */
function run(args: string[]) {
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 15_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe('npm start options', () => {
  it('have the documented defaults', () => {
    expect(parseStartArgs([])).toEqual({
      kind: 'run',
      options: {
        lan: false,
        https: false,
        host: undefined,
        port: 8080,
        'relay-port': DEFAULT_RELAY_PORT,
        data: '.data',
        dist: 'dist',
        cert: undefined,
        key: undefined,
        relay: [],
        'public-url': undefined,
        turn: [],
        'turn-secret': undefined,
        'relay-fallback': true,
        'fallback-peers': 16,
        'fallback-link-mib': 8,
        'fallback-link-minutes': 30,
        'fallback-peer-mib-per-hour': 64,
        'fallback-total-mib-per-hour': 512,
        quiet: false,
      },
    })
  })

  it("set the relay's fallback limits, or turn relaying off", () => {
    const run = (argv: string[]) => {
      const command = parseStartArgs(argv)
      if (command.kind !== 'run') throw new Error('not a run')
      return fallbackLimitsFrom(command.options)
    }
    expect(run([])).toEqual(DEFAULT_FALLBACK_LIMITS)
    expect(run(['--relay-fallback', 'off']).enabled).toBe(false)
    expect(
      run([
        '--fallback-peers=4',
        '--fallback-link-mib=2',
        '--fallback-link-minutes=10',
        '--fallback-peer-mib-per-hour=16',
        '--fallback-total-mib-per-hour=64',
      ]),
    ).toEqual({
      ...DEFAULT_FALLBACK_LIMITS,
      maxPeers: 4,
      linkBytes: 2n << 20n,
      linkDurationMs: 600_000,
      peerBytesPerHour: 16 << 20,
      totalBytesPerHour: 64 << 20,
    })
    expect(() => parseStartArgs(['--relay-fallback', 'maybe'])).toThrow(
      '--relay-fallback must be on or off, got "maybe"',
    )
    expect(() => parseRelayArgs(['--fallback-peers=0'])).toThrow(
      '--fallback-peers must be a positive number, got "0"',
    )
  })

  it('parse ports as numbers', () => {
    const command = parseStartArgs(['--lan', '--port', '0', '--relay-port=9999', '--https'])
    expect(command).toMatchObject({
      kind: 'run',
      options: { lan: true, port: 0, 'relay-port': 9999 },
    })
  })

  it.each([
    [['--cert', 'c.pem'], '--cert and --key go together'],
    [['--key', 'k.pem'], '--cert and --key go together'],
    [['--port', 'http'], '--port must be a port number (0 to 65535), got "http"'],
    [['--relay-prot', '1'], "Unknown option '--relay-prot' (did you mean --relay-port?)"],
    [['--data', ''], '--data must not be empty'],
    [
      ['--relay', '/ip4/127.0.0.1/tcp/9090/ws'],
      '--relay must be a relay\'s multiaddr ending in /p2p/<PeerId> (e.g. /dns4/HOST/tcp/443/tls/ws/p2p/12D3KooW…) or its /relay.json URL, got "/ip4/127.0.0.1/tcp/9090/ws"',
    ],
    [
      ['--public-url', 'http://murmuration.example.org'],
      '--public-url must be an https origin such as https://murmuration.example.org, got "http://murmuration.example.org"',
    ],
    [['--public-url', 'https://example.org/app/'], '--public-url must be an https origin'],
  ])('%j: %s', (argv, message) => {
    expect(() => parseStartArgs(argv)).toThrow(message)
  })

  it('take other relays, in order, by multiaddr or /relay.json URL, and a public origin', () => {
    const addr =
      '/dns4/relay2.example.org/tcp/443/tls/ws/p2p/12D3KooWM3D1J9MBUMYYG7o8cHMJvH9qGBtbqbvMjpbS3SXzzLyp'
    const command = parseStartArgs([
      '--relay',
      'https://relay3.example.org/relay.json',
      '--relay',
      addr,
      '--public-url',
      'https://murmuration.example.org',
    ])
    expect(command).toMatchObject({
      kind: 'run',
      options: { relay: ['https://relay3.example.org/relay.json', addr] },
    })
    if (command.kind === 'run')
      expect(command.options['public-url']?.href).toBe('https://murmuration.example.org/')
  })

  it('help names every option of the table', () => {
    for (const name of Object.keys(START_OPTIONS)) expect(START_USAGE).toContain(`--${name}`)
    expect(START_USAGE).toMatch(/--port PORT +the web app's port \(default 8080\)/)
  })
})

describe('npm run relay options', () => {
  it('have the documented defaults', () => {
    expect(parseRelayArgs([])).toEqual({
      kind: 'run',
      options: {
        host: '127.0.0.1',
        port: DEFAULT_RELAY_PORT,
        'http-port': undefined,
        'key-file': DEFAULT_RELAY_KEY_FILE,
        turn: [],
        'turn-secret': undefined,
        'relay-fallback': true,
        'fallback-peers': 16,
        'fallback-link-mib': 8,
        'fallback-link-minutes': 30,
        'fallback-peer-mib-per-hour': 64,
        'fallback-total-mib-per-hour': 512,
        quiet: false,
      },
    })
  })

  it('help names every option of the table', () => {
    for (const name of Object.keys(RELAY_OPTIONS)) expect(RELAY_USAGE).toContain(`--${name}`)
    expect(RELAY_USAGE).toMatch(
      /--http-port PORT +HTTP port for \/relay\.json \(default --port \+ 1\)/,
    )
  })
})

describe('the programs', () => {
  it('npm start -- --bogus: one line on stderr, exit 2, before any build', () => {
    const { code, stdout, stderr } = run(['scripts/start.mjs', '--bogus'])
    expect(code).toBe(EXIT_USAGE)
    expect(stderr).toBe(
      "murmuration: Unknown option '--bogus'; npm start -- --help lists every option\n",
    )
    expect(stdout).toBe('')
  })

  it('npm start -- --help: the usage on stdout, exit 0, before any build', () => {
    const { code, stdout, stderr } = run(['scripts/start.mjs', '--help'])
    expect(code).toBe(0)
    expect(stdout).toBe(`${START_USAGE}\n`)
    expect(stderr).toBe('')
  })

  it('npm run relay -- with a misspelled option or a bad value: one line naming it, exit 2', () => {
    const misspelled = run([...RELAY, '--htp-port', '9091'])
    expect(misspelled.code).toBe(EXIT_USAGE)
    expect(misspelled.stderr).toBe(
      "murmuration: Unknown option '--htp-port' (did you mean --http-port?); npm run relay -- --help lists every option\n",
    )
    const bad = run([...RELAY, '--port', '99999'])
    expect(bad.code).toBe(EXIT_USAGE)
    expect(bad.stderr.trimEnd().split('\n')).toEqual([
      'murmuration: --port must be a port number (0 to 65535), got "99999"; npm run relay -- --help lists every option',
    ])
    expect(bad.stdout).toBe('')
  })

  it('npm run relay -- -h: the usage, exit 0', () => {
    const { code, stdout } = run([...RELAY, '-h'])
    expect(code).toBe(0)
    expect(stdout).toBe(`${RELAY_USAGE}\n`)
  })

  it('relay/start.ts checks its own command line too (as the e2e fixtures run it)', () => {
    const { code, stderr } = run([...START, '--lan', '--cert', 'c.pem'])
    expect(code).toBe(EXIT_USAGE)
    expect(stderr).toBe(
      'murmuration: --cert and --key go together; npm start -- --help lists every option\n',
    )
  })
})
