/**
 * The platform-neutral core of a swarm node: one libp2p node with identify
 * and gossipsub, plus the relay client (connection, reservation, discovery),
 * the dialer, anti-entropy sync, strikes, and the connection summary. The
 * browser and Node variants (node.browser.ts, node.node.ts) only supply the
 * transports, the listen addresses and the identity.
 */
import { createLibp2p, type Libp2pOptions } from 'libp2p'
import { identify, type Identify } from '@libp2p/identify'
import { noise } from '@libp2p/noise'
import { yamux } from '@libp2p/yamux'
import type { GossipSub } from '@libp2p/gossipsub'
import type { Connection, ConnectionGater, Libp2p, PrivateKey } from '@libp2p/interface'
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr'
import {
  DEFAULT_ROOM,
  DIAL_RECHECK_MS,
  GOSSIP_HEARTBEAT_MS,
  INBOUND_CONNECTION_THRESHOLD,
  MAX_RECORD_BYTES,
  QUIET_TICK_MS,
  SYNC_MAX_INBOUND_STREAMS,
  SYNC_PROTOCOL,
  SYNC_STRIKE_WEIGHT,
  YAMUX_KEEPALIVE,
} from './constants'
import { checkRoom } from './discovery-wire'
import { Dialer } from './dialer'
import { quietAfterMs } from './topology'
import { InvalidInitError, InvalidRoomError, NodeStoppedError } from './errors'
import { GossipAdapter, guardInbound, swarmGossipsub } from './gossip'
import { RateLimiter } from './rate-limit'
import { createRelinker } from './relink'
import { LinkMonitor } from './link-monitor'
import { roomTopics } from '../protocol/topics'
import { consoleLogger, errMsg, type NetLogger } from './log'
import { peerIdOf } from './multiaddr'
import { circuitListen, RelayClient } from './relay-client'
import { Strikes } from './strikes'
import { banGater } from './ban-gater'
import { abortLink } from './hang-up'
import { Syncer } from './sync'
import { syncAgain } from './sync-session'
import { firstEnough } from './enough'
import { LinkPaths } from './link-paths'
import { iceFailed, unreachable, type DirectCause } from './fallback'
import type {
  ConnectionSummary,
  LinkKind,
  PeerLink,
  SwarmEvents,
  SwarmNode,
  SwarmNodeInitBase,
  SyncReport,
} from './types'

/** What a platform variant supplies. */
export interface PlatformParts {
  privateKey: PrivateKey
  transports: NonNullable<Libp2pOptions['transports']>
  listen: string[]
  /**
   * which of a peer's announced TCP/WebSocket addresses we can dial, tried
   * before WebRTC (see dialer.ts); default none
   */
  direct?: (addr: Multiaddr) => boolean
  /** extra gater rules (the browser allows private/loopback dials) */
  gater?: Partial<ConnectionGater>
  /**
   * the least time a link's ping may take before the link is aborted;
   * default libp2p's (5 s, adaptive). Node peers: LINK_PING_MIN_TIMEOUT_MS
   */
  pingMinTimeoutMs?: number
  /** this peer was online in the room under its PeerId moments ago (dialer.ts); default false */
  returning?: boolean
  /** runs after stop (e.g. release the identity lock) */
  onStopped?: () => void
  /**
   * this peer cannot link directly from the start (a browser without
   * RTCPeerConnection): it asks its relays to carry its traffic (fallback.ts)
   */
  cannotLinkDirectly?: DirectCause
}

type Services = { identify: Identify; pubsub: GossipSub }

const LINK_RANK: Record<LinkKind, number> = {
  'direct-webrtc': 4,
  other: 3,
  'via-relay': 2,
  relayed: 1,
}

/** How a connection links us; `viaRelay`: a limited one that carries our traffic (fallback.ts). */
export function linkKind(conn: Connection, viaRelay = false): LinkKind {
  if (conn.limits != null) return viaRelay ? 'via-relay' : 'relayed'
  return conn.remoteAddr.getComponents().some((c) => c.name === 'webrtc')
    ? 'direct-webrtc'
    : 'other'
}

function parseRelays(relays: string[]): Multiaddr[] {
  return relays.map((r) => {
    let ma: Multiaddr
    try {
      ma = multiaddr(r)
    } catch (err) {
      throw new InvalidInitError(`bad relay multiaddr ${r}: ${errMsg(err)}`)
    }
    if (peerIdOf(ma) === undefined)
      throw new InvalidInitError(`relay multiaddr lacks /p2p/<id>: ${r}`)
    return ma
  })
}

export async function createSwarm(
  init: SwarmNodeInitBase,
  platform: PlatformParts,
): Promise<SwarmNode> {
  // a tab's console is for people: sync sessions and links go to murmuration:net
  const logger: NetLogger = init.logger ?? consoleLogger('net', { info: 'debug' })
  const room = init.room ?? DEFAULT_ROOM
  try {
    checkRoom(room)
  } catch (err) {
    throw err instanceof InvalidRoomError ? err : new InvalidRoomError(errMsg(err))
  }
  const maxRecordBytes = init.maxRecordBytes ?? MAX_RECORD_BYTES
  const relays = parseRelays(init.relays ?? [])
  const stopController = new AbortController()
  const stopSignal = stopController.signal

  // the gater and the ban handler exist before the node does
  const ref: { node?: Libp2p<Services>; dialer?: Dialer; relayClient?: RelayClient } = {}
  // a banned peer's links are dropped: all of its member's PeerIds' (strikes.ts)
  const hangUpBanned = () => {
    for (const c of ref.node?.getConnections() ?? []) {
      if (strikes.isBanned(c.remotePeer.toString())) abortLink(c, 'peer banned')
    }
  }
  const strikes = new Strikes({
    ...(init.memberOf ? { memberOf: init.memberOf } : {}),
    onBan: (peerId, reason, member) => {
      logger.warn('peer banned', { peer: peerId, reason, ...(member ? { member } : {}) })
      hangUpBanned()
    },
  })

  const libp2p: Libp2p<Services> = await createLibp2p({
    privateKey: platform.privateKey,
    addresses: { listen: circuitListen(platform.listen, relays) },
    transports: platform.transports,
    connectionEncrypters: [noise()],
    streamMuxers: [yamux({ enableKeepAlive: YAMUX_KEEPALIVE })],
    connectionGater: { ...platform.gater, ...banGater((peerId) => strikes.isBanned(peerId)) },
    connectionManager: { inboundConnectionThreshold: INBOUND_CONNECTION_THRESHOLD },
    // link-monitor.ts pings instead, at a cadence that follows the room
    connectionMonitor: { enabled: false },
    services: {
      identify: identify(),
      pubsub: swarmGossipsub({
        maxRecordBytes,
        topics: Object.values(roomTopics(room)),
        strikes: (peer) => strikes.count(peer),
        // links through the relay of peers that cannot link directly (fallback.ts)
        carries: (conn) => ref.dialer?.isFallbackLink(conn) ?? false,
      }),
    },
  })
  ref.node = libp2p
  const self = libp2p.peerId.toString()

  // --- events -------------------------------------------------------------
  const listeners: { [E in keyof SwarmEvents]: Set<(d: SwarmEvents[E]) => void> } = {
    connections: new Set(),
    sync: new Set(),
  }
  function emit<E extends keyof SwarmEvents>(event: E, detail: SwarmEvents[E]): void {
    for (const cb of listeners[event]) {
      try {
        cb(detail)
      } catch (err) {
        logger.error(`listener of '${event}' threw`, { error: errMsg(err) })
      }
    }
  }
  let lastSummary = ''
  let summaryQueued = false
  const summaryChanged = () => {
    if (summaryQueued || stopSignal.aborted) return
    summaryQueued = true
    setTimeout(() => {
      summaryQueued = false
      if (stopSignal.aborted) return
      const s = summary()
      const key = JSON.stringify(s)
      if (key === lastSummary) return
      lastSummary = key
      emit('connections', s)
    }, 0)
  }

  // --- parts ----------------------------------------------------------------
  const gossip = new GossipAdapter({
    pubsub: libp2p.services.pubsub,
    validate: init.validate,
    maxRecordBytes,
    logger,
    onReject: (peer, reason) => strikes.strike(peer, reason),
  })
  guardInbound({
    pubsub: libp2p.services.pubsub,
    limiter: new RateLimiter(),
    logger,
    ...(init.authorOf ? { authorOf: init.authorOf } : {}),
    onFlood: (peer, count) => strikes.strike(peer, 'gossip flood', count),
  })

  const dialer = new Dialer({
    libp2p,
    logger,
    signal: stopSignal,
    isBanned: (p) => strikes.isBanned(p),
    onChange: summaryChanged,
    ...(platform.direct !== undefined ? { direct: platform.direct } : {}),
    returning: platform.returning,
    ...(init.surplusLinkGraceMs !== undefined ? { surplusGraceMs: init.surplusLinkGraceMs } : {}),
    selfCause: () => ref.relayClient?.fallback,
  })
  ref.dialer = dialer

  // a quiet room (topology.ts quietAfterMs) keeps ring links only and slows its
  // timers (QUIET_TICK_MS); activity wakes it at once
  let ticker: ReturnType<typeof setTimeout> | undefined
  let activeAt = Date.now()
  let quiet = false
  let planOver = false
  const setQuiet = (q: boolean) => {
    if (q === quiet) return
    quiet = q
    dialer.setQuiet(q)
    gossip.setHeartbeat(q ? QUIET_TICK_MS : GOSSIP_HEARTBEAT_MS)
    // awake, the ticker's next turn is a busy one (it may be QUIET_TICK_MS away)
    if (!q) scheduleTick(DIAL_RECHECK_MS)
    summaryChanged()
  }
  function roomActive(): void {
    activeAt = Date.now()
    setQuiet(false)
  }

  const relayClient = new RelayClient({
    libp2p,
    relays,
    room,
    logger,
    signal: stopSignal,
    onPeers: (relay, peers, fallback) => {
      // a newcomer wakes a quiet room: it links to everyone, and likely brings work
      if (dialer.setRoomPeers(relay, peers, fallback)) roomActive()
      summaryChanged()
    },
    ...(platform.cannotLinkDirectly ? { fallback: platform.cannotLinkDirectly } : {}),
    onChange: () => {
      relayClient.tick()
      summaryChanged()
    },
  })

  let syncRetries = 0
  let syncRetryTimer: ReturnType<typeof setTimeout> | undefined
  const syncer = new Syncer({
    room,
    store: init.store,
    logger,
    signal: stopSignal,
    onStrike: (peer, reason) => strikes.strike(peer, reason, SYNC_STRIKE_WEIGHT),
    // a session whose link a newer one replaced (relink.ts) resumes on the newest
    linkTo: (peer) =>
      directConnections()
        .filter((c) => c.remotePeer.toString() === peer)
        .sort((a, b) => b.timeline.open - a.timeline.open)[0],
    onSession: (report) => {
      if (report.accepted > 0 || report.sent > 0 || report.error !== undefined) {
        logger.info('sync session', { ...report })
      }
      emit('sync', report)
      // a big late join takes one session per SYNC_MAX_WANT_PER_SESSION
      // records, back to back (sync-session.ts: syncAgain)
      const again = syncAgain(report, syncRetries)
      syncRetries = again.retries
      if (again.delayMs !== undefined && !stopSignal.aborted && syncRetryTimer === undefined) {
        syncRetries++
        syncRetryTimer = setTimeout(() => {
          syncRetryTimer = undefined
          // a session can end after stop() began; a retry then has nothing to do
          if (stopSignal.aborted) return
          syncNow().catch((err) => logger.info('sync retry failed', { error: errMsg(err) }))
        }, again.delayMs)
      }
    },
  })

  ref.relayClient = relayClient

  /** a link of ours: direct (not relayed) and not to a relay, or a link through the relay (fallback.ts) */
  function isLink(c: Connection): boolean {
    if (c.limits != null) return dialer.isFallbackLink(c)
    return !relayClient.isRelay(c.remotePeer.toString())
  }

  function directConnections(): Connection[] {
    return libp2p.getConnections().filter((c) => c.status === 'open' && isLink(c))
  }

  async function syncNow(options: { enough?: number; peers?: number } = {}): Promise<SyncReport[]> {
    if (stopSignal.aborted) throw new NodeStoppedError('node stopped')
    // one session per peer, even if a peer has two direct connections
    const byPeer = new Map<string, Connection>()
    for (const c of directConnections()) byPeer.set(c.remotePeer.toString(), c)
    const links = [...byPeer.values()]
    // a random few (Fisher–Yates, the first `peers` places)
    const count = Math.min(options.peers ?? links.length, links.length)
    for (let i = 0; i < count; i++) {
      const j = i + Math.floor(Math.random() * (links.length - i))
      ;[links[i], links[j]] = [links[j]!, links[i]!]
    }
    const sessions = links.slice(0, count).map((c) => syncer.syncWith(c))
    return firstEnough(sessions, options.enough ?? sessions.length, (r) => r.error === undefined)
  }

  function summary(): ConnectionSummary {
    const best = new Map<string, PeerLink>()
    for (const c of libp2p.getConnections()) {
      if (c.status !== 'open') continue
      const peer = c.remotePeer.toString()
      if (relayClient.isRelay(peer)) continue
      const kind = linkKind(c, dialer.isFallbackLink(c))
      // a WebRTC link counts once data went both ways over it
      if (kind === 'direct-webrtc' && !linkPaths.carries(c)) continue
      const prev = best.get(peer)
      if (prev === undefined || LINK_RANK[kind] > LINK_RANK[prev.kind]) {
        const path = kind === 'direct-webrtc' ? linkPaths.path(c) : undefined
        best.set(peer, { peerId: peer, kind, ...(path ? { path } : {}) })
      }
    }
    const peers: PeerLink[] = [...best.values()].sort((a, b) => (a.peerId < b.peerId ? -1 : 1))
    const relaysStatus = relayClient.status()
    const cannotLink = dialer.selfFallback()
    const unreachablePeers = [...dialer.fallbackStates()]
      .filter(([peer, state]) => peer !== self && unreachable(state))
      .map(([peerId, state]) => ({ peerId, ...state }))
      .sort((a, b) => (a.peerId < b.peerId ? -1 : 1))
    return {
      relay: relaysStatus.some((r) => r.connected && r.reserved) ? 'up' : 'down',
      relays: relaysStatus,
      peers,
      direct: peers.filter((p) => p.kind === 'direct-webrtc').length,
      relayed: peers.filter((p) => p.kind === 'relayed').length,
      other: peers.filter((p) => p.kind === 'other').length,
      viaRelay: peers.filter((p) => p.kind === 'via-relay').length,
      known: dialer.known,
      quiet,
      ...(cannotLink ? { cannotLink: { ...cannotLink } } : {}),
      unreachable: unreachablePeers,
    }
  }

  // --- link paths: LAN, NAT or TURN (link-paths.ts) --------------------------
  const linkPaths = new LinkPaths({ onChange: summaryChanged, logger })
  libp2p.addEventListener('peer:identify', (evt) => {
    linkPaths.identified(evt.detail.connection)
    summaryChanged()
  })

  // --- wiring ---------------------------------------------------------------
  // on links only: a limited connection only when it is a link through the
  // relay (fallback.ts), never a WebRTC dial's signalling
  await libp2p.handle(
    SYNC_PROTOCOL,
    (stream, conn) => {
      if (isLink(conn)) syncer.handle(stream, conn)
      else stream.abort(new Error('sync runs on links only'))
    },
    { runOnLimitedConnection: true, maxInboundStreams: SYNC_MAX_INBOUND_STREAMS },
  )

  const relinker = createRelinker({ libp2p, isLink, logger })
  const linkMonitor = new LinkMonitor({
    connections: () => libp2p.getConnections(),
    logger,
    signal: stopSignal,
    ...(platform.pingMinTimeoutMs !== undefined ? { minTimeoutMs: platform.pingMinTimeoutMs } : {}),
  })
  libp2p.addEventListener('connection:open', (evt) => {
    const conn = evt.detail
    summaryChanged()
    if (relayClient.isRelay(conn.remotePeer.toString())) {
      relayClient.tick()
      return
    }
    relinker.linkOpened(conn)
    // the dialing side starts the session; the other side answers it
    if (isLink(conn) && conn.direction === 'outbound') {
      void syncer.syncWith(conn)
    }
  })
  libp2p.addEventListener('connection:close', (evt) => {
    summaryChanged()
    if (relayClient.isRelay(evt.detail.remotePeer.toString())) relayClient.tick()
    dialer.tick()
  })
  // a new reservation shows up here at once; self:peer:update comes ~1 s
  // later (libp2p debounces it), which would delay discovery by that much
  libp2p.addEventListener('transport:listening', () => {
    relayClient.tick()
    summaryChanged()
  })
  libp2p.addEventListener('self:peer:update', () => {
    relayClient.tick()
    summaryChanged()
  })

  function tick(): void {
    // a PeerId whose bind to a banned member arrived since its link opened
    if (init.memberOf) hangUpBanned()
    relayClient.tick()
    relinker.tick()
    // a tab with WebRTC whose every direct attempt failed asks to be relayed
    if (relayClient.fallback === undefined && iceFailed(dialer.directAttempts(), Date.now()))
      relayClient.askRelaying('ice-failed')
    setQuiet(Date.now() - activeAt >= quietAfterMs(planOver, init.quietLinksAfterMs))
    dialer.tick()
    linkPaths.tick(directConnections(), quiet)
    linkMonitor.tick(quiet)
    summaryChanged()
    scheduleTick(quiet ? QUIET_TICK_MS : DIAL_RECHECK_MS)
  }
  function scheduleTick(ms: number): void {
    clearTimeout(ticker)
    if (!stopSignal.aborted) ticker = setTimeout(tick, ms)
  }
  scheduleTick(DIAL_RECHECK_MS)

  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      stopController.abort(new NodeStoppedError('node stopped'))
      clearTimeout(ticker)
      if (syncRetryTimer !== undefined) clearTimeout(syncRetryTimer)
      try {
        await libp2p.stop()
      } catch (err) {
        logger.warn('libp2p stop failed', { error: errMsg(err) })
      }
      platform.onStopped?.()
    })()
    return stopping
  }
  if (init.signal !== undefined) {
    if (init.signal.aborted) void stop()
    else init.signal.addEventListener('abort', () => void stop(), { once: true })
  }

  relayClient.tick()
  logger.info('swarm node started', { peerId: self, room })

  return {
    peerId: self,
    room,
    publish: (topic, bytes) => {
      if (stopSignal.aborted) return Promise.reject(new NodeStoppedError('node stopped'))
      return gossip.publish(topic, bytes, self)
    },
    subscribe: (topic, onMessage) => {
      if (stopSignal.aborted) throw new NodeStoppedError('node stopped')
      return gossip.subscribe(topic, onMessage)
    },
    connections: summary,
    on: (event, cb) => {
      const set = listeners[event] as Set<typeof cb>
      set.add(cb)
      return () => void set.delete(cb)
    },
    syncNow,
    roomActive,
    setPlanOver: (over: boolean) => {
      planOver = over
    },
    multiaddrs: () => libp2p.getMultiaddrs().map((ma) => ma.toString()),
    stop,
  }
}
