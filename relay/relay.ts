/**
 * The relay: a small libp2p node that browser tabs reach over WebSockets.
 * It offers circuit relay v2 (so tabs can signal WebRTC to each other),
 * identify, and room discovery (/murmuration/discover/1.0.0). It subscribes
 * to no topic and keeps no plan state; once tabs are linked over WebRTC it
 * is not needed for plan traffic.
 *
 * It keeps its Ed25519 key on disk so its PeerId (and every share URL naming
 * it) survives a restart, and serves GET /relay.json on a sibling HTTP port
 * so a web app served elsewhere can find it, and GET /ice.json there: the
 * STUN/TURN servers peers should use, with fresh TURN credentials (ice.ts).
 */
import { createServer, type Server } from 'node:http'
import { networkInterfaces } from 'node:os'
import type { AddressInfo } from 'node:net'
import { createLibp2p } from 'libp2p'
import { circuitRelayServer, type CircuitRelayService } from '@libp2p/circuit-relay-v2'
import { identify, type Identify } from '@libp2p/identify'
import { noise } from '@libp2p/noise'
import { yamux } from '@libp2p/yamux'
import { webSockets } from '@libp2p/websockets'
import type { Libp2p, PrivateKey } from '@libp2p/interface'
import { DISCOVER_PROTOCOL, LINK_PING_MIN_TIMEOUT_MS, YAMUX_KEEPALIVE } from '../src/net/constants'
import { loadOrCreateKeyFile } from '../src/net/identity.node.js'
import { consoleLogger, errMsg, type NetLogger } from '../src/net/log'
import { NO_ICE_SERVERS, type IceConfig } from '../src/net/ice-config'
import { DEFAULT_DISCOVERY_LIMITS, DiscoveryServer, type DiscoveryLimits } from './discover'
import {
  DEFAULT_ADDRESS_LIMITS,
  REFUSAL_SUMMARY_MS,
  RefusalLog,
  type AddressLimits,
} from './limits'
import { addressGater, addressOf } from './limits-gater'
import { DEFAULT_FALLBACK_LIMITS, FallbackRelay, type FallbackLimits } from './fallback'
import { peerIdFromString } from '@libp2p/peer-id'

import { DEFAULT_RELAY_HOST, DEFAULT_RELAY_KEY_FILE, DEFAULT_RELAY_PORT } from './defaults'

export { DEFAULT_RELAY_HOST, DEFAULT_RELAY_KEY_FILE, DEFAULT_RELAY_PORT }

/**
 * Reservations: one per tab or agent. The default (15) stops a swarm at 15
 * peers. 512 covers a classroom of laptops with several tabs each; a
 * reservation costs the relay a map entry and a timer.
 */
export const RELAY_MAX_RESERVATIONS = 512

/**
 * Relayed links carry WebRTC signalling (an SDP offer/answer and ICE
 * candidates: a few KiB), identify and identify-push. The default cut-offs
 * (2 min, 128 KiB) end a relayed link that a tab is still using to retry a
 * failed WebRTC dial, or to keep reaching a peer whose WebRTC failed. 10 min
 * and 1 MiB cover many retries and address changes, while still keeping the
 * relay from being used as a data hub (gossipsub never runs on these links).
 */
export const RELAY_LINK_DURATION_MS = 10 * 60_000
export const RELAY_LINK_DATA_BYTES = 1n << 20n

/**
 * Concurrent hop (connect) streams. A tab joining a room of N peers opens up
 * to N signalling links at once, and a room forming at once opens N²/2: 512
 * lets ~30 tabs start together.
 */
export const RELAY_MAX_HOP_STREAMS = 512

/** Connections: every tab keeps one to the relay, plus relayed links. */
export const RELAY_MAX_CONNECTIONS = 2_048

/**
 * New connections per second from one host. All tabs of a laptop come from
 * one IP; the default (5/s) refuses a browser restoring a session of tabs.
 */
export const RELAY_INBOUND_CONNECTION_THRESHOLD = 200

/**
 * How often the relay pings each connected peer (libp2p's default: 10 s).
 * A ping is a new stream, a protocol negotiation and an echo, on both ends:
 * in a room left idle it was the bulk of what an agent's relay connection
 * carried. A peer that closes its tab or process closes its socket, and
 * leaves at once; only one that vanishes from the network without a word
 * (a laptop lid) now stays in the room lists up to this much longer, and a
 * newcomer's dial of it fails and is backed off (dialer.ts). A minute: a
 * tab left open in a quiet room pings its relay only every 5 minutes
 * (QUIET_LINK_PING_INTERVAL_MS), so these pings were most of what its
 * relay connection carried.
 */
export const RELAY_PING_INTERVAL_MS = 60_000

/** Upgrades in progress at once (noise + yamux handshakes). Default is 10. */
export const RELAY_MAX_PENDING_CONNECTIONS = 128

/** circuit relay v2's stop protocol: the relay's stream to the peer a relayed link reaches */
const RELAY_STOP_PROTOCOL = '/libp2p/circuit/relay/0.2.0/stop'

export interface RelayInit {
  /** interface to listen on; default 127.0.0.1; 0.0.0.0 for the LAN */
  host?: string
  /** WebSocket port; default 9090; 0 picks a free one */
  port?: number
  /** HTTP port for /relay.json; default port+1 (0 when port is 0: a free one) */
  httpPort?: number
  /** key file, created on first run; default .data/relay.key. Ignored with privateKey. */
  keyFile?: string
  privateKey?: PrivateKey
  /** default: console */
  logger?: NetLogger
  /** the body of GET /ice.json, made per request (ice.ts); default: no ICE servers */
  ice?: () => IceConfig
  /** caps (tests lower them); default: the RELAY_*, limits.ts and discover.ts constants */
  limits?: Partial<RelayLimits>
}

export interface RelayLimits
  extends AddressLimits, Omit<DiscoveryLimits, 'burstPerAddress' | 'refillPerSPerAddress'> {
  maxReservations: number
  linkDurationMs: number
  linkDataBytes: bigint
  maxHopStreams: number
  /** relaying the traffic of peers that cannot link directly (fallback.ts) */
  fallback: FallbackLimits
}

export const DEFAULT_RELAY_LIMITS: RelayLimits = {
  maxReservations: RELAY_MAX_RESERVATIONS,
  linkDurationMs: RELAY_LINK_DURATION_MS,
  linkDataBytes: RELAY_LINK_DATA_BYTES,
  maxHopStreams: RELAY_MAX_HOP_STREAMS,
  fallback: DEFAULT_FALLBACK_LIMITS,
  ...DEFAULT_ADDRESS_LIMITS,
  maxRooms: DEFAULT_DISCOVERY_LIMITS.maxRooms,
  maxRoomMembers: DEFAULT_DISCOVERY_LIMITS.maxRoomMembers,
  maxRoomsPerPeer: DEFAULT_DISCOVERY_LIMITS.maxRoomsPerPeer,
}

export interface Relay {
  peerId: string
  /** WebSocket multiaddrs with /p2p/<id> (LAN addresses when host is 0.0.0.0) */
  multiaddrs: string[]
  /** http://host:port/relay.json */
  infoUrl: string
  limits: RelayLimits
  /** refusals so far by "kind|address" (limits.ts RefusalLog) */
  refusals(): Map<string, number>
  /** PeerIds holding a reservation */
  reservations(): string[]
  /** the limit of `peerId`'s reservation: what each relayed link to it may carry and last */
  reservationLimit(peerId: string): { data?: bigint; duration?: number } | undefined
  /** room → member PeerIds */
  rooms(): Map<string, string[]>
  libp2p: Libp2p
  stop(): Promise<void>
}

/** The body of GET /relay.json. */
export interface RelayInfoJson {
  peerId: string
  multiaddrs: string[]
}

export async function createRelay(init: RelayInit = {}): Promise<Relay> {
  const logger = init.logger ?? consoleLogger('relay')
  const host = init.host ?? DEFAULT_RELAY_HOST
  const port = init.port ?? DEFAULT_RELAY_PORT
  const httpPort = init.httpPort ?? (port === 0 ? 0 : port + 1)
  const privateKey =
    init.privateKey ?? (await loadOrCreateKeyFile(init.keyFile ?? DEFAULT_RELAY_KEY_FILE))
  const limits: RelayLimits = { ...DEFAULT_RELAY_LIMITS, ...init.limits }
  const family = host.includes(':') ? 'ip6' : 'ip4'
  const refusals = new RefusalLog(logger)
  // the gater asks libp2p about connections and reservations: set once it exists
  const ref: { node?: Libp2p<{ identify: Identify; relay: CircuitRelayService }> } = {}
  const gater = addressGater({
    limits,
    refusals,
    connectionsFrom: (address) =>
      ref.node?.getConnections().filter((c) => addressOf(c.remoteAddr) === address).length ?? 0,
    addressOfPeer: (peer) => {
      for (const c of ref.node?.getConnections(peer) ?? []) {
        const address = addressOf(c.remoteAddr)
        if (address !== undefined) return address
      }
      return undefined
    },
    reservationsFrom: (address, except) => {
      let n = 0
      for (const [peer, r] of ref.node?.services.relay.reservations ?? []) {
        // a reservation outlives its connection (its TTL is 2 h) and a peer
        // that comes back over a new one still counts on it, so it is kept;
        // only those of connected peers count against the address
        if (peer.equals(except) || addressOf(r.addr) !== address) continue
        if ((ref.node?.getConnections(peer).length ?? 0) > 0) n++
      }
      return n
    },
  })

  // peers that cannot link directly, relayed within the operator's limits
  const discoveryRef: { server?: DiscoveryServer } = {}
  const fallback = new FallbackRelay({
    limits: limits.fallback,
    refusals,
    reservationOf: (peer) => ref.node?.services.relay.reservations.get(peerIdFromString(peer)),
    linksTo: (peer) =>
      (ref.node?.getConnections(peerIdFromString(peer)) ?? [])
        .flatMap((c) => c.streams)
        .filter((s) => s.protocol === RELAY_STOP_PROTOCOL && s.status === 'open').length,
    onChange: (peer) => discoveryRef.server?.changed(peer),
  })

  const libp2p: Libp2p<{ identify: Identify; relay: CircuitRelayService }> = await createLibp2p({
    privateKey,
    addresses: { listen: [`/${family}/${host}/tcp/${port}/ws`] },
    transports: [webSockets()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux({ enableKeepAlive: YAMUX_KEEPALIVE })],
    connectionGater: {
      ...gater,
      denyOutboundRelayedConnection: (src, dst) => fallback.denyLink(src, dst),
    },
    connectionManager: {
      maxConnections: RELAY_MAX_CONNECTIONS,
      inboundConnectionThreshold: RELAY_INBOUND_CONNECTION_THRESHOLD,
      maxIncomingPendingConnections: RELAY_MAX_PENDING_CONNECTIONS,
    },
    // a busy peer machine answers pings late: do not drop its reservation for it
    connectionMonitor: {
      pingInterval: RELAY_PING_INTERVAL_MS,
      pingTimeout: { minTimeout: LINK_PING_MIN_TIMEOUT_MS },
    },
    services: {
      identify: identify(),
      relay: circuitRelayServer({
        maxInboundHopStreams: limits.maxHopStreams,
        maxOutboundHopStreams: limits.maxHopStreams,
        maxOutboundStopStreams: limits.maxHopStreams,
        reservations: {
          maxReservations: limits.maxReservations,
          defaultDurationLimit: limits.linkDurationMs,
          defaultDataLimit: limits.linkDataBytes,
        },
      }),
    },
  })

  ref.node = libp2p
  const relayService = libp2p.services.relay
  const summary = setInterval(() => {
    refusals.flush(Date.now())
    fallback.tick()
  }, REFUSAL_SUMMARY_MS)
  summary.unref()
  const discovery = new DiscoveryServer({
    logger,
    refusals,
    limits: {
      ...limits,
      burstPerAddress: limits.discoverBurstPerAddress,
      refillPerSPerAddress: limits.discoverRefillPerSPerAddress,
    },
    hasReservation: (peerId) => {
      for (const id of relayService.reservations.keys()) if (id.toString() === peerId) return true
      return false
    },
    fallback,
  })
  discoveryRef.server = discovery
  await libp2p.handle(DISCOVER_PROTOCOL, discovery.handle, {
    // one per connected peer; a reconnecting peer briefly has two
    maxInboundStreams: 2,
  })

  const peerId = libp2p.peerId.toString()
  const multiaddrs = relayMultiaddrs(libp2p, host)

  const info: RelayInfoJson = { peerId, multiaddrs }
  const http = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*')
    res.setHeader('Cache-Control', 'no-store')
    const path = (req.url ?? '/').split('?')[0]
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET')
      res.writeHead(204).end()
    } else if (req.method === 'GET' && path === '/relay.json') {
      res.setHeader('Content-Type', 'application/json')
      res.writeHead(200).end(JSON.stringify(info))
    } else if (req.method === 'GET' && path === '/ice.json') {
      res.setHeader('Content-Type', 'application/json')
      res.writeHead(200).end(JSON.stringify(init.ice?.() ?? NO_ICE_SERVERS))
    } else {
      res.writeHead(404).end()
    }
  })
  const httpAddr = await listen(http, host, httpPort)
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
  const infoUrl = `http://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${httpAddr.port}/relay.json`

  let stopping: Promise<void> | undefined
  return {
    peerId,
    multiaddrs,
    infoUrl,
    limits,
    refusals: () => refusals.totals(),
    reservations: () => [...relayService.reservations.keys()].map((p) => p.toString()),
    reservationLimit: (peer) => relayService.reservations.get(peerIdFromString(peer))?.limit,
    rooms: () => discovery.snapshot(),
    libp2p,
    stop: () => {
      stopping ??= (async () => {
        clearInterval(summary)
        http.close()
        http.closeAllConnections()
        try {
          await libp2p.stop()
        } catch (err) {
          logger.warn('relay stop failed', { error: errMsg(err) })
        }
      })()
      return stopping
    },
  }
}

/** The relay's WebSocket addresses; for 0.0.0.0, one per interface, LAN first. */
function relayMultiaddrs(libp2p: Libp2p, host: string): string[] {
  const addrs = libp2p.getMultiaddrs().map((ma) => ma.toString())
  if (host !== '0.0.0.0') return addrs
  // libp2p expands 0.0.0.0 to every interface; make sure LAN ones are there
  const peerId = libp2p.peerId.toString()
  const port = addrs[0]?.match(/\/tcp\/(\d+)\//)?.[1]
  const lan: string[] = []
  for (const ifaces of Object.values(networkInterfaces())) {
    for (const i of ifaces ?? []) {
      if (i.family === 'IPv4' && !i.internal && port !== undefined) {
        lan.push(`/ip4/${i.address}/tcp/${port}/ws/p2p/${peerId}`)
      }
    }
  }
  return [...new Set([...lan, ...addrs])]
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve(server.address() as AddressInfo)
    })
  })
}
