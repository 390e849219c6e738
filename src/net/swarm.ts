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
import { QuietRoom } from './quiet-room'
import { connectionSummary, summaryNotifier } from './connection-summary'
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
import { SyncRounds } from './sync-rounds'
import { LinkPaths } from './link-paths'
import { iceFailed, type DirectCause } from './fallback'
import type { ConnectionSummary, SwarmEvents, SwarmNode, SwarmNodeInitBase } from './types'

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
  const summary = (): ConnectionSummary =>
    connectionSummary({ libp2p, self, relayClient, dialer, linkPaths, quiet: quietRoom.quiet })
  const summaryChanged = summaryNotifier({
    summary,
    emit: (s) => emit('connections', s),
    signal: stopSignal,
  })

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
  const quietRoom = new QuietRoom({
    signal: stopSignal,
    tick,
    onSwitch: (quiet) => {
      dialer.setQuiet(quiet)
      gossip.setHeartbeat(quiet ? QUIET_TICK_MS : GOSSIP_HEARTBEAT_MS)
    },
    onChange: summaryChanged,
    quietLinksAfterMs: init.quietLinksAfterMs,
  })
  const roomActive = (): void => quietRoom.active()

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

  const syncRounds = new SyncRounds({
    room,
    store: init.store,
    logger,
    signal: stopSignal,
    onStrike: (peer, reason) => strikes.strike(peer, reason, SYNC_STRIKE_WEIGHT),
    links: directConnections,
    onReport: (report) => emit('sync', report),
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
      if (isLink(conn)) syncRounds.handle(stream, conn)
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
      void syncRounds.syncWith(conn)
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
    quietRoom.check()
    dialer.tick()
    linkPaths.tick(directConnections(), quietRoom.quiet)
    linkMonitor.tick(quietRoom.quiet)
    summaryChanged()
  }
  quietRoom.start()

  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      stopController.abort(new NodeStoppedError('node stopped'))
      quietRoom.stop()
      syncRounds.stop()
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
    syncNow: (options) => syncRounds.syncNow(options),
    roomActive,
    setPlanOver: (over: boolean) => quietRoom.setPlanOver(over),
    multiaddrs: () => libp2p.getMultiaddrs().map((ma) => ma.toString()),
    stop,
  }
}
