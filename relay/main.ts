/**
 * The relay CLI:
 *   npm run relay -- --help     (every option with its default: options.ts)
 * Prints its multiaddrs and the /relay.json URL, then runs until SIGINT or
 * SIGTERM. The last lines it prints on start are machine-readable:
 *   RELAY_PEER_ID <peerId>
 *   RELAY_MULTIADDR <multiaddr>      (one line per address)
 *   RELAY_INFO_URL <url>
 *   RELAY_READY
 */
import { fallbackLimitsFrom, optionsOrExit, parseRelayArgs, RELAY_USAGE } from './options'

const values = optionsOrExit(
  () => parseRelayArgs(process.argv.slice(2)),
  RELAY_USAGE,
  'npm run relay -- --help',
)
// loaded once the command line is good: --help and a mistake are answered at once
const { createRelay } = await import('./relay')
const { consoleLogger } = await import('../src/net/log')
const { iceFromOptions } = await import('./ice')
const { exitOnPortInUse, listening } = await import('./port-in-use')

const logger = consoleLogger('relay')
// a port already taken is one line and exit 2, however it surfaces (port-in-use.ts)
const PORT_OPTIONS = '--port or --http-port'
const stopPortWatch = exitOnPortInUse('relay', PORT_OPTIONS)
const relay = await listening(
  createRelay({
    host: values.host,
    port: values.port,
    httpPort: values['http-port'],
    keyFile: values['key-file'],
    limits: { fallback: fallbackLimitsFrom(values) },
    ice: iceFromOptions(values.turn, values['turn-secret']),
    logger: values.quiet ? { ...logger, info: () => {} } : logger,
  }),
  'relay',
  PORT_OPTIONS,
)
stopPortWatch()

console.log(`Murmuration relay ${relay.peerId}`)
if (values.host === '0.0.0.0') console.log('Listening on every interface; LAN addresses first:')
for (const ma of relay.multiaddrs) console.log(`  ${ma}`)
console.log(`Relay info for web apps: ${relay.infoUrl}`)
console.log(`RELAY_PEER_ID ${relay.peerId}`)
for (const ma of relay.multiaddrs) console.log(`RELAY_MULTIADDR ${ma}`)
console.log(`RELAY_INFO_URL ${relay.infoUrl}`)
console.log('RELAY_READY')

let stopping = false
async function shutdown(signal: string): Promise<void> {
  if (stopping) return
  stopping = true
  console.log(`relay: ${signal}, stopping`)
  const force = setTimeout(() => process.exit(1), 5_000)
  force.unref()
  await relay.stop()
  process.exit(0)
}
process.on('SIGINT', () => void shutdown('SIGINT'))
process.on('SIGTERM', () => void shutdown('SIGTERM'))
