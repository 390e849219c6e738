/**
 * The command lines of `npm start` (start.ts) and `npm run relay` (main.ts):
 * one table each, from which parsing, --help and the one-line errors come
 * (src/cli/options.ts). A new option is one entry in a table, plus its use.
 *
 * Light on purpose: scripts/start.mjs loads this module to check the command
 * line before it builds the app, so it imports nothing that loads libp2p.
 */
import {
  badValue,
  flag,
  formatOptions,
  list,
  option,
  parseOptions,
  port,
  text,
  EXIT_USAGE,
  UsageError,
  type OptionValues,
  type Parse,
} from '../src/cli/options'
import { isIceUrl, TURN_CREDENTIAL_TTL_S, TURN_SECRET_ENV } from './ice'
import { isRelayInfoUrl, isRelayMultiaddr } from './relay-source'
import { DEFAULT_FALLBACK_LIMITS, type FallbackLimits } from './fallback'
import {
  DEFAULT_APP_PORT,
  DEFAULT_RELAY_HOST,
  DEFAULT_RELAY_KEY_FILE,
  DEFAULT_RELAY_PORT,
} from './defaults'

const iceUrl: Parse<string> = (raw, name) => {
  if (!isIceUrl(raw))
    throw badValue(name, 'stun:HOST[:PORT], turn:HOST[:PORT] or turns:HOST[:PORT]', raw)
  return raw
}

/** STUN/TURN servers for tabs and agents (ice.ts), served at /ice.json by both commands. */
const ICE_OPTIONS = {
  turn: list({
    arg: 'URL',
    help: 'a STUN or TURN server for links across NATs, e.g. turn:HOST:3478 or turns:HOST:5349 (repeatable; a turn: server is asked for STUN too)',
    parse: iceUrl,
  }),
  'turn-secret': option({
    arg: 'SECRET',
    help: `coturn's static-auth-secret: tabs get TURN credentials made with it, valid ${TURN_CREDENTIAL_TTL_S / 3600} h (or set $${TURN_SECRET_ENV}, out of sight of ps)`,
    parse: text,
    shownDefault: 'none',
  }),
}

const onOff: Parse<boolean> = (raw, name) => {
  if (raw !== 'on' && raw !== 'off') throw badValue(name, 'on or off', raw)
  return raw === 'on'
}

const positive: Parse<number> = (raw, name) => {
  const n = Number(raw)
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !(n > 0)) throw badValue(name, 'a positive number', raw)
  return n
}

const MIB = 2 ** 20
const D = DEFAULT_FALLBACK_LIMITS

/**
 * Relaying the traffic of peers that cannot link directly (fallback.ts): on
 * or off, and its limits (docs/ARCHITECTURE.md, "A peer that cannot link
 * directly", says what they cost).
 */
const FALLBACK_OPTIONS = {
  'relay-fallback': option({
    arg: 'on|off',
    help: 'carry the traffic of tabs that cannot link directly (no WebRTC in their browser, or every direct attempt failed) through the relay, within the limits below; off: they are told the relay refuses',
    parse: onOff,
    default: D.enabled,
    shownDefault: 'on',
  }),
  'fallback-peers': option({
    arg: 'N',
    help: 'such peers relayed at once, in total',
    parse: positive,
    default: D.maxPeers,
  }),
  'fallback-link-mib': option({
    arg: 'MIB',
    help: 'what one relayed link may carry (both ways) before the relay ends it; its peers link again',
    parse: positive,
    default: Number(D.linkBytes) / MIB,
  }),
  'fallback-link-minutes': option({
    arg: 'MIN',
    help: 'how long one relayed link may last before the relay ends it; its peers link again',
    parse: positive,
    default: D.linkDurationMs / 60_000,
  }),
  'fallback-peer-mib-per-hour': option({
    arg: 'MIB',
    help: "one relayed peer's budget an hour (each link is charged its whole allowance when it opens); spent, the peer is told the relay's limits are reached",
    parse: positive,
    default: D.peerBytesPerHour / MIB,
  }),
  'fallback-total-mib-per-hour': option({
    arg: 'MIB',
    help: 'the budget of all relayed peers together, an hour',
    parse: positive,
    default: D.totalBytesPerHour / MIB,
  }),
}

/** The relay's fallback limits from the options above. */
export function fallbackLimitsFrom(values: OptionValues<typeof FALLBACK_OPTIONS>): FallbackLimits {
  return {
    ...DEFAULT_FALLBACK_LIMITS,
    enabled: values['relay-fallback'],
    maxPeers: Math.floor(values['fallback-peers']),
    linkBytes: BigInt(Math.round(values['fallback-link-mib'] * MIB)),
    linkDurationMs: Math.round(values['fallback-link-minutes'] * 60_000),
    peerBytesPerHour: Math.round(values['fallback-peer-mib-per-hour'] * MIB),
    totalBytesPerHour: Math.round(values['fallback-total-mib-per-hour'] * MIB),
  }
}

const relaySource: Parse<string> = (raw, name) => {
  if (!isRelayMultiaddr(raw) && !isRelayInfoUrl(raw))
    throw badValue(
      name,
      "a relay's multiaddr ending in /p2p/<PeerId> (e.g. /dns4/HOST/tcp/443/tls/ws/p2p/12D3KooW…) or its /relay.json URL",
      raw,
    )
  return raw
}

const publicUrl: Parse<URL> = (raw, name) => {
  let url: URL | undefined
  try {
    url = new URL(raw)
  } catch {
    url = undefined
  }
  if (url?.protocol !== 'https:' || url.pathname !== '/' || url.search !== '' || url.hash !== '')
    throw badValue(name, 'an https origin such as https://murmuration.example.org', raw)
  return url
}

/** A secret for no TURN server is a mistake worth saying. */
function checkIce(options: { turn: string[]; 'turn-secret': string | undefined }): void {
  if (options['turn-secret'] !== undefined && !options.turn.some((u) => u.startsWith('turn')))
    throw new UsageError('--turn-secret needs a --turn turn:HOST:PORT server')
}

/** `npm start`: the relay and the web app in one process. */
export const START_OPTIONS = {
  lan: flag('let others on your network in: listen on every interface, print the LAN URLs'),
  https: flag(
    "serve the app over TLS as well, on the same port, with a certificate made on first start and kept in --data (a friend's page is then a secure context)",
  ),
  host: option({
    arg: 'IP',
    help: 'interface to listen on',
    parse: text,
    shownDefault: '127.0.0.1, or 0.0.0.0 with --lan',
  }),
  port: option({ arg: 'PORT', help: "the web app's port", parse: port, default: DEFAULT_APP_PORT }),
  'relay-port': option({
    arg: 'PORT',
    help: "the relay's WebSocket port; the relay also answers /relay.json over HTTP on the next one (PORT + 1), so a firewall opens both",
    parse: port,
    default: DEFAULT_RELAY_PORT,
  }),
  data: option({
    arg: 'DIR',
    help: "the relay's key (so share links survive a restart) and the TLS certificate",
    parse: text,
    default: '.data',
  }),
  dist: option({ arg: 'DIR', help: 'the built web app', parse: text, default: 'dist' }),
  cert: option({
    arg: 'FILE',
    help: 'PEM certificate to serve; implies --https, needs --key',
    parse: text,
    shownDefault: 'the one made in --data',
  }),
  key: option({
    arg: 'FILE',
    help: 'PEM private key of --cert',
    parse: text,
    shownDefault: 'none',
  }),
  relay: list({
    arg: 'ADDR',
    help: 'another relay for tabs and agents to register with as well, so the room survives losing one: its multiaddr ending in /p2p/<PeerId>, or its /relay.json URL (repeatable)',
    parse: relaySource,
  }),
  'public-url': option({
    arg: 'URL',
    help: 'the https origin people open, when a reverse proxy (Caddy, nginx) serves this app there: /relay.json then names the relay as wss on it',
    parse: publicUrl,
    shownDefault: 'none',
  }),
  ...ICE_OPTIONS,
  ...FALLBACK_OPTIONS,
  quiet: flag("print only errors and the start lines, not the relay's log"),
}

export const START_USAGE = `Usage: npm start -- [options]

Runs the relay and the web app in one process, building the app first when
its sources changed, and prints the URL to open.

Options:
${formatOptions(START_OPTIONS)}`

export type StartOptions = OptionValues<typeof START_OPTIONS>

/** Parses and checks `npm start`'s argv; throws UsageError. */
export function parseStartArgs(
  argv: string[],
): { kind: 'help' } | { kind: 'run'; options: StartOptions } {
  const command = parseOptions(START_OPTIONS, argv)
  if (command.kind === 'help') return command
  const options = command.values
  if ((options.cert === undefined) !== (options.key === undefined))
    throw new UsageError('--cert and --key go together')
  checkIce(options)
  return { kind: 'run', options }
}

/** `npm run relay`: the relay alone. */
export const RELAY_OPTIONS = {
  host: option({
    arg: 'IP',
    help: 'interface to listen on; 0.0.0.0 for every one',
    parse: text,
    default: DEFAULT_RELAY_HOST,
  }),
  port: option({ arg: 'PORT', help: 'WebSocket port', parse: port, default: DEFAULT_RELAY_PORT }),
  'http-port': option({
    arg: 'PORT',
    help: 'HTTP port for /relay.json',
    parse: port,
    shownDefault: '--port + 1',
  }),
  'key-file': option({
    arg: 'FILE',
    help: "the relay's key, made on first start, so its PeerId survives a restart",
    parse: text,
    default: DEFAULT_RELAY_KEY_FILE,
  }),
  ...ICE_OPTIONS,
  ...FALLBACK_OPTIONS,
  quiet: flag('print only errors and the start lines'),
}

export const RELAY_USAGE = `Usage: npm run relay -- [options]

Runs the relay alone and prints its multiaddrs and the /relay.json URL for
web apps served elsewhere (and /ice.json beside it, with --turn).

Options:
${formatOptions(RELAY_OPTIONS)}`

export type RelayOptions = OptionValues<typeof RELAY_OPTIONS>

/** Parses and checks `npm run relay`'s argv; throws UsageError. */
export function parseRelayArgs(
  argv: string[],
): { kind: 'help' } | { kind: 'run'; options: RelayOptions } {
  const command = parseOptions(RELAY_OPTIONS, argv)
  if (command.kind === 'help') return command
  checkIce(command.values)
  return { kind: 'run', options: command.values }
}

/**
 * The options to run with, or the exit: --help prints the usage and exits 0;
 * a mistake prints one line on stderr and exits EXIT_USAGE, no stack trace.
 */
export function optionsOrExit<T>(
  command: () => { kind: 'help' } | { kind: 'run'; options: T },
  usage: string,
  helpCommand: string,
): T {
  try {
    const parsed = command()
    if (parsed.kind === 'run') return parsed.options
    console.log(usage)
    process.exit(0)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    process.stderr.write(`murmuration: ${err.message}; ${helpCommand} lists every option\n`)
    process.exit(EXIT_USAGE)
  }
}
