/**
 * `npm start`: the relay and the web app in one process.
 *
 *   npm start -- --help      (every option with its default: options.ts)
 *
 * Builds nothing (scripts/start.mjs runs `vite build` first when needed), keeps
 * the relay's key in <data>/relay.key so every share link survives a restart,
 * and prints the URL to open (and the LAN URL with --lan).
 *
 * --https serves the app over TLS as well, on the same port, with a
 * certificate made on first start and kept in <data> (or --cert/--key), and
 * prints its fingerprint: a friend's page from a LAN address is then a secure
 * context once they accept the certificate. This machine's tabs keep using
 * http://127.0.0.1, which browsers already treat as secure.
 *
 * --relay (repeatable) names other relays, by multiaddr or /relay.json URL:
 * tabs and agents register with every one as well as with this one, so the
 * room outlives any one of them (other-relays.ts). --public-url is for a
 * reverse proxy that serves this app over https (docs/guide/network.md, "Run a public relay").
 *
 * Exit codes: 0 stopped, 2 usage or a port already in use (one line on stderr).
 */
import { hostname, networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { EXIT_USAGE } from '../src/cli/options'
import { fallbackLimitsFrom, optionsOrExit, parseStartArgs, START_USAGE } from './options'
import type { TlsFiles } from './tls'

const values = optionsOrExit(
  () => parseStartArgs(process.argv.slice(2)),
  START_USAGE,
  'npm start -- --help',
)
// loaded once the command line is good: --help and a mistake are answered at once
const { consoleLogger } = await import('../src/net/log')
const { serveApp } = await import('./app-server')
const { createRelay } = await import('./relay')
const { loadOrCreateTlsCert, readTlsFiles, TlsConfigError } = await import('./tls')
const { iceFromOptions, TURN_CREDENTIAL_TTL_S } = await import('./ice')
const { otherRelays } = await import('./other-relays')
const { exitOnPortInUse, listening } = await import('./port-in-use')

function fail(message: string): never {
  console.error(`murmuration: ${message}`)
  process.exit(EXIT_USAGE)
}

const useTls = values.https || values.cert !== undefined
// fresh TURN credentials for each tab that asks (ice.ts); none without --turn
const ice = iceFromOptions(values.turn, values['turn-secret'])

function lanAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((nic) => nic && nic.family === 'IPv4' && !nic.internal)
    .map((nic) => nic!.address)
}

const host = values.host ?? (values.lan ? '0.0.0.0' : '127.0.0.1')
const logger = consoleLogger('relay')
// a port already taken is one line and exit 2, however it surfaces (port-in-use.ts)
const PORT_OPTIONS =
  '--port (the app) or --relay-port (the relay, and its /relay.json on the next port)'
const stopPortWatch = exitOnPortInUse('murmuration', PORT_OPTIONS)
const relay = await listening(
  createRelay({
    host,
    port: values['relay-port'],
    keyFile: join(values.data, 'relay.key'),
    limits: { fallback: fallbackLimitsFrom(values) },
    logger: values.quiet ? { ...logger, info: () => {} } : logger,
  }),
  'murmuration',
  PORT_OPTIONS,
)
const stopOthers = new AbortController()
const others = otherRelays({ sources: values.relay, logger, signal: stopOthers.signal })
// a first answer from each /relay.json URL before the first tab asks; one that
// is down is left out, retried, and named once it answers
await others.ready
let tls: TlsFiles | undefined
try {
  if (values.cert !== undefined && values.key !== undefined) {
    tls = await readTlsFiles(values.cert, values.key)
  } else if (useTls) {
    const names = ['127.0.0.1', 'localhost', hostname(), `${hostname()}.local`, ...lanAddresses()]
    tls = await loadOrCreateTlsCert(values.data, [...new Set(names)])
  }
} catch (err) {
  if (err instanceof TlsConfigError) fail(err.message)
  throw err
}
const relayPort = Number(/\/tcp\/(\d+)\//.exec(relay.multiaddrs[0] ?? '')?.[1])
const scheme = tls === undefined ? 'http' : 'https'
const app = await listening(
  serveApp({
    dir: values.dist,
    host,
    port: values.port,
    relay: { peerId: relay.peerId, multiaddrs: relay.multiaddrs },
    otherRelays: () => others.list(),
    ...(values['public-url'] ? { publicUrl: values['public-url'] } : {}),
    lanOrigins: (port) =>
      host === '0.0.0.0' ? lanAddresses().map((ip) => `${scheme}://${ip}:${port}`) : [],
    tls,
    ...(ice ? { ice } : {}),
    relayWs: { host: host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host, port: relayPort },
  }),
  'murmuration',
  PORT_OPTIONS,
)
stopPortWatch()

const local = `http://127.0.0.1:${app.port}/`
console.log('')
console.log('  Murmuration is running.')
console.log(`  Open:  ${local}`)
if (host === '0.0.0.0') {
  for (const ip of lanAddresses()) console.log(`  LAN:   ${scheme}://${ip}:${app.port}/`)
} else {
  console.log('  (only this machine can join; `npm start -- --lan` lets others on your network in)')
}
if (tls !== undefined) {
  console.log(`  TLS:   ${tls.certPath}${tls.created ? ' (new)' : ''}`)
  console.log(`         SHA-256 ${tls.fingerprint}`)
  console.log('         (friends accept it once; the fingerprint their browser shows must match)')
}
console.log(`  Relay: ${relay.peerId}`)
for (const other of others.list()) console.log(`         and ${other.peerId}`)
for (const url of others.waiting()) console.log(`         (${url} not reachable yet: retried)`)
if (values['public-url'] !== undefined) console.log(`  Public: ${values['public-url'].href}`)
if (ice !== undefined) {
  const turn =
    ice().expiresAt === null ? '' : ` (TURN credentials valid ${TURN_CREDENTIAL_TTL_S / 3600} h)`
  console.log(`  ICE:   ${values.turn.join(' ')}${turn}`)
}
console.log('')
console.log(`APP_URL ${local}`)
console.log('APP_READY')

let stopping = false
async function shutdown(): Promise<void> {
  if (stopping) return
  stopping = true
  stopOthers.abort()
  await app.close()
  await relay.stop()
  process.exit(0)
}
process.on('SIGINT', () => void shutdown())
process.on('SIGTERM', () => void shutdown())
