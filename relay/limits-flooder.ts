/**
 * A flood from one address, for relay/limits-flood.node.test.ts (not a tool
 * to point at anyone else's relay: it dials only the multiaddr it is given,
 * and the test gives it a loopback one).
 *
 *   node --import ./scripts/node-preload.mjs --import tsx relay/limits-flooder.ts \
 *     RELAY_MULTIADDR FROM_IP NODES SOCKETS
 *
 * Every socket it opens is bound to FROM_IP (on Linux all of 127.0.0.0/8 is
 * loopback, so 127.0.0.2 is "another host" to a relay on 127.0.0.1). It:
 *  1. starts NODES libp2p peers, each with a fresh PeerId: each connects
 *     and asks for a reservation; then all of them at once open
 *     room-discovery streams in a loop (join, wait for the answer, close,
 *     again) in rooms of their own;
 *  2. opens SOCKETS WebSockets that never start a handshake, holding the
 *     relay's handshake slots until its upgrade timeout, and opens them again
 *     as they are closed.
 * Prints `FLOOD_READY {"reserved":…,"discoveries":…,"discoveryRefused":…}`
 * once both run, then keeps flooding until SIGTERM.
 */
import { WebSocket as WsWebSocket, type ClientOptions } from 'ws'
import type { Libp2p } from '@libp2p/interface'

const [relayAddr, fromIp, nodesArg, socketsArg] = process.argv.slice(2)
if (relayAddr === undefined || fromIp === undefined) {
  console.error('usage: limits-flooder.ts RELAY_MULTIADDR FROM_IP [NODES] [SOCKETS]')
  process.exit(2)
}
const NODES = Number(nodesArg ?? 80)
const SOCKETS = Number(socketsArg ?? 300)
/** Peers started at once: the relay's handshake cap per address would refuse more. */
const NODE_BATCH = 16
/** A closed flood socket is opened again this much later (pressure without a busy loop). */
const REOPEN_MS = 200
/** Discovery streams each peer opens one after another. */
const DISCOVERIES_PER_NODE = 4

/** The WebSocket libp2p dials with, bound to FROM_IP. */
class BoundWebSocket extends WsWebSocket {
  constructor(url: string | URL, protocols?: string | string[], options?: ClientOptions) {
    super(url, protocols ?? [], { ...options, localAddress: fromIp })
  }
}
;(globalThis as { WebSocket: unknown }).WebSocket = BoundWebSocket

const { createLibp2p } = await import('libp2p')
const { circuitRelayTransport } = await import('@libp2p/circuit-relay-v2')
const { identify } = await import('@libp2p/identify')
const { noise } = await import('@libp2p/noise')
const { yamux } = await import('@libp2p/yamux')
const { webSockets } = await import('@libp2p/websockets')
const { lpStream } = await import('@libp2p/utils')
const { multiaddr } = await import('@multiformats/multiaddr')
const { DISCOVER_PROTOCOL } = await import('../src/net/constants')
const { encodeJoin } = await import('../src/net/discovery-wire')

const relay = multiaddr(relayAddr)
const relayId = relayAddr.split('/p2p/')[1] as string
let stopping = false
const nodes: Libp2p[] = []
const stats = { reserved: 0, discoveries: 0, discoveryRefused: 0, socketsOpened: 0 }

/** A peer with a fresh PeerId that connects and asks for a reservation; undefined if refused. */
async function floodPeer(): Promise<Libp2p | undefined> {
  const node = await createLibp2p({
    addresses: { listen: ['/p2p-circuit'] },
    transports: [webSockets(), circuitRelayTransport()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: { identify: identify() },
  })
  nodes.push(node)
  try {
    await node.dial(relay, { signal: AbortSignal.timeout(10_000) })
  } catch {
    return undefined // refused: that is the point
  }
  const marker = `/p2p/${relayId}/p2p-circuit`
  const reserved = () => node.getMultiaddrs().some((ma) => ma.toString().includes(marker))
  const end = Date.now() + 3_000
  while (Date.now() < end && !reserved()) await new Promise((r) => setTimeout(r, 50))
  if (reserved()) stats.reserved++
  return node
}

/** Discovery streams one after another: join a room of its own, read the answer, close. */
async function floodDiscovery(node: Libp2p, i: number): Promise<void> {
  for (let k = 0; k < DISCOVERIES_PER_NODE && !stopping; k++) {
    try {
      const stream = await node.dialProtocol(relay, DISCOVER_PROTOCOL)
      const lp = lpStream(stream)
      await lp.write(encodeJoin({ room: `flood-${i}-${k}` }))
      await lp.read({ signal: AbortSignal.timeout(3_000) })
      stats.discoveries++
      await stream.close()
    } catch {
      stats.discoveryRefused++
    }
  }
}

function floodSocket(url: string): void {
  if (stopping) return
  const ws = new BoundWebSocket(url)
  ws.on('open', () => stats.socketsOpened++)
  ws.on('error', () => {})
  ws.on('close', () => setTimeout(() => floodSocket(url), REOPEN_MS))
}

process.once('SIGTERM', () => {
  stopping = true
  for (const node of nodes) void node.stop()
  setTimeout(() => process.exit(0), 1_000).unref()
})

const peers: Libp2p[] = []
for (let i = 0; i < NODES; i += NODE_BATCH) {
  const batch = []
  for (let j = i; j < Math.min(NODES, i + NODE_BATCH); j++) batch.push(floodPeer())
  for (const node of await Promise.all(batch)) if (node !== undefined) peers.push(node)
}
// all at once, so the requests come faster than the per-address bucket refills
await Promise.all(peers.map((node, i) => floodDiscovery(node, i)))
const [, , host, , port] = relayAddr.split('/')
for (let i = 0; i < SOCKETS; i++) floodSocket(`ws://${host}:${port}`)
await new Promise((r) => setTimeout(r, 1_000))
console.log(`FLOOD_READY ${JSON.stringify(stats)}`)
