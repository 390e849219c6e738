/**
 * The relay CLI:
 *   npm run relay -- [--host 127.0.0.1] [--port 9090] [--http-port 9091]
 *                    [--key-file .data/relay.key]
 * Prints its multiaddrs and the /relay.json URL, then runs until SIGINT or
 * SIGTERM. The last lines it prints on start are machine-readable:
 *   RELAY_PEER_ID <peerId>
 *   RELAY_MULTIADDR <multiaddr>      (one line per address)
 *   RELAY_INFO_URL <url>
 *   RELAY_READY
 */
import { parseArgs } from 'node:util'
import {
  createRelay,
  DEFAULT_RELAY_HOST,
  DEFAULT_RELAY_KEY_FILE,
  DEFAULT_RELAY_PORT,
} from './relay'
import { consoleLogger } from '../src/net/log'

const { values } = parseArgs({
  options: {
    host: { type: 'string', default: DEFAULT_RELAY_HOST },
    port: { type: 'string', default: String(DEFAULT_RELAY_PORT) },
    'http-port': { type: 'string' },
    'key-file': { type: 'string', default: DEFAULT_RELAY_KEY_FILE },
    quiet: { type: 'boolean', default: false },
  },
  strict: true,
})

function port(s: string | undefined, name: string): number | undefined {
  if (s === undefined) return undefined
  const n = Number(s)
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`--${name} must be a port number, got ${s}`)
    process.exit(2)
  }
  return n
}

const logger = consoleLogger('relay')
const relay = await createRelay({
  host: values.host,
  port: port(values.port, 'port'),
  httpPort: port(values['http-port'], 'http-port'),
  keyFile: values['key-file'],
  logger: values.quiet ? { ...logger, info: () => {} } : logger,
})

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
