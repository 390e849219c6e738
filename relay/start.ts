/**
 * `npm start`: the relay and the web app in one process.
 *
 *   npm start -- [--lan] [--port 8080] [--relay-port 9090] [--data .data]
 *
 * Builds nothing (the npm script runs `vite build` first when needed), keeps
 * the relay's key in <data>/relay.key so every share link survives a restart,
 * and prints the URL to open (and the LAN URL with --lan).
 */
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { consoleLogger } from '../src/net/log'
import { serveApp } from './app-server'
import { createRelay } from './relay'

const { values } = parseArgs({
  options: {
    lan: { type: 'boolean', default: false },
    host: { type: 'string' },
    port: { type: 'string', default: '8080' },
    'relay-port': { type: 'string', default: '9090' },
    data: { type: 'string', default: '.data' },
    dist: { type: 'string', default: 'dist' },
    quiet: { type: 'boolean', default: false },
  },
})

function lanAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((nic) => nic && nic.family === 'IPv4' && !nic.internal)
    .map((nic) => nic!.address)
}

const host = values.host ?? (values.lan ? '0.0.0.0' : '127.0.0.1')
const logger = consoleLogger('relay')
const relay = await createRelay({
  host,
  port: Number(values['relay-port']),
  keyFile: join(values.data, 'relay.key'),
  logger: values.quiet ? { ...logger, info: () => {} } : logger,
})
const app = await serveApp({
  dir: values.dist,
  host,
  port: Number(values.port),
  relay: { peerId: relay.peerId, multiaddrs: relay.multiaddrs },
  lanOrigins: (port) =>
    host === '0.0.0.0' ? lanAddresses().map((ip) => `http://${ip}:${port}`) : [],
})

const local = `http://127.0.0.1:${app.port}/`
console.log('')
console.log('  Murmuration is running.')
console.log(`  Open:  ${local}`)
if (host === '0.0.0.0') {
  for (const ip of lanAddresses()) console.log(`  LAN:   http://${ip}:${app.port}/`)
} else {
  console.log('  (only this machine can join; `npm start -- --lan` lets others on your network in)')
}
console.log(`  Relay: ${relay.peerId}`)
console.log('')
console.log(`APP_URL ${local}`)
console.log('APP_READY')

let stopping = false
async function shutdown(): Promise<void> {
  if (stopping) return
  stopping = true
  await app.close()
  await relay.stop()
  process.exit(0)
}
process.on('SIGINT', () => void shutdown())
process.on('SIGTERM', () => void shutdown())
