/**
 * Our side of the relays: keep a connection to each (redial with backoff when
 * it drops: a relay restart must not strand the tabs), and once we hold a
 * reservation on it, keep a /murmuration/discover/1.0.0 stream open to learn
 * the peers of our room (wire format: discovery-wire.ts).
 *
 * The reservation itself is made by the circuit relay transport as soon as a
 * relay is connected and identified (we listen on /p2p-circuit).
 */
import { lpStream } from '@libp2p/utils'
import type { Libp2p, Stream } from '@libp2p/interface'
import type { Multiaddr } from '@multiformats/multiaddr'
import {
  DISCOVER_MAX_FRAME_BYTES,
  DISCOVER_PROTOCOL,
  RELAY_REDIAL_INITIAL_MS,
  RELAY_REDIAL_MAX_MS,
} from './constants'
import { decodePeers, encodeJoin } from './discovery-wire'
import type { DirectCause, FallbackState } from './fallback'
import { errMsg, type NetLogger } from './log'
import { backoff } from './backoff'
import { peerIdOf } from './multiaddr'

/**
 * The listen addresses with one /p2p-circuit per relay: each /p2p-circuit is
 * one reservation for the circuit relay transport, on whichever relay it
 * finds first, so a peer given several relays listens on as many to hold a
 * reservation on each (and be listed by each: relay-client.ts). A relay that
 * goes away frees its slot for it again when it comes back.
 */
export function circuitListen(listen: string[], relays: Multiaddr[]): string[] {
  const count = Math.max(1, new Set(relays.map((r) => peerIdOf(r))).size)
  return listen.flatMap((addr) => (addr === '/p2p-circuit' ? Array(count).fill(addr) : [addr]))
}

export interface RelayClientInit {
  libp2p: Libp2p
  /** relay multiaddrs, each with /p2p/<id> */
  relays: Multiaddr[]
  room: string
  logger: NetLogger
  signal: AbortSignal
  /**
   * the room's peers as listed by one relay (replaces that relay's previous
   * list), and which of them (this peer included) asked it to carry their
   * traffic, with its answer (fallback.ts)
   */
  onPeers: (relay: RelayInfo, peers: string[], fallback: Map<string, FallbackState>) => void
  /** this peer cannot link directly from the start (no WebRTC): it asks every relay to carry its traffic */
  fallback?: DirectCause
  /** connection or reservation state of a relay changed */
  onChange: () => void
}

export interface RelayInfo {
  peerId: string
  addr: Multiaddr
}

interface RelayState extends RelayInfo {
  /** every address given for this relay; tried in turn, `addr` is the one that worked */
  addrs: Multiaddr[]
  dialing: boolean
  failures: number
  nextDialAt: number
  /** the open discovery stream, or 'opening' while one is being opened */
  discover: Stream | 'opening' | undefined
}

export class RelayClient {
  private readonly relays = new Map<string, RelayState>()
  /** why this peer cannot link directly, once it knows: named when it joins its room */
  private cause: DirectCause | undefined

  constructor(private readonly init: RelayClientInit) {
    this.cause = init.fallback
    for (const addr of init.relays) {
      const peerId = peerIdOf(addr)
      if (peerId === undefined) continue
      const known = this.relays.get(peerId)
      if (known !== undefined) {
        known.addrs.push(addr)
        continue
      }
      this.relays.set(peerId, {
        peerId,
        addr,
        addrs: [addr],
        dialing: false,
        failures: 0,
        nextDialAt: 0,
        discover: undefined,
      })
    }
  }

  /** Why this peer cannot link directly, if it asked its relays to carry its traffic. */
  get fallback(): DirectCause | undefined {
    return this.cause
  }

  /**
   * This peer cannot link directly after all (every ICE attempt failed): it
   * joins its room again on each relay, asking to be relayed (a new
   * discovery stream replaces the old one on the relay).
   */
  askRelaying(cause: DirectCause): void {
    if (this.cause !== undefined) return
    this.cause = cause
    this.init.logger.warn('no direct link: asking the relay to carry our traffic', { cause })
    for (const r of this.relays.values()) {
      if (r.discover !== undefined && r.discover !== 'opening') {
        r.discover.abort(new Error('joining again to ask for relaying'))
      }
    }
    this.tick()
  }

  isRelay(peerId: string): boolean {
    return this.relays.has(peerId)
  }

  status(): Array<{ peerId: string; connected: boolean; reserved: boolean }> {
    return [...this.relays.values()].map((r) => ({
      peerId: r.peerId,
      connected: this.connected(r.peerId),
      reserved: this.reserved(r.peerId),
    }))
  }

  /** Idempotent: dial what is down, open discovery where reserved. */
  tick(): void {
    if (this.init.signal.aborted) return
    const now = Date.now()
    for (const r of this.relays.values()) {
      if (!this.connected(r.peerId)) {
        if (!r.dialing && now >= r.nextDialAt) void this.dial(r)
      } else if (r.discover === undefined && this.reserved(r.peerId)) {
        void this.discover(r)
      }
    }
  }

  private connected(peerId: string): boolean {
    return this.init.libp2p
      .getConnections()
      .some((c) => c.remotePeer.toString() === peerId && c.status === 'open')
  }

  private reserved(peerId: string): boolean {
    const marker = `/p2p/${peerId}/p2p-circuit`
    return this.init.libp2p.getMultiaddrs().some((ma) => ma.toString().includes(marker))
  }

  private async dial(r: RelayState): Promise<void> {
    r.dialing = true
    const addr = r.addrs[r.failures % r.addrs.length] ?? r.addr
    try {
      await this.init.libp2p.dial(addr, { signal: this.init.signal })
      r.addr = addr
      r.failures = 0
      this.init.logger.info('relay connected', { relay: r.peerId })
    } catch (err) {
      r.failures++
      r.nextDialAt = Date.now() + backoff(r.failures, RELAY_REDIAL_INITIAL_MS, RELAY_REDIAL_MAX_MS)
      if (!this.init.signal.aborted) {
        this.init.logger.debug('relay dial failed', { relay: r.peerId, error: errMsg(err) })
      }
    } finally {
      r.dialing = false
      this.init.onChange()
    }
  }

  private async discover(r: RelayState): Promise<void> {
    const { libp2p, logger, signal, room } = this.init
    // claimed before the first await: a tick meanwhile must not open a second
    // stream (the relay would replace the first, and so on)
    r.discover = 'opening'
    let stream: Stream
    try {
      const conn = libp2p.getConnections().find((c) => c.remotePeer.toString() === r.peerId)
      if (conn === undefined) throw new Error('relay not connected')
      stream = await conn.newStream(DISCOVER_PROTOCOL, { signal })
      r.discover = stream
    } catch (err) {
      r.discover = undefined
      logger.debug('discovery: could not open stream', { relay: r.peerId, error: errMsg(err) })
      return
    }
    const lp = lpStream(stream, { maxDataLength: DISCOVER_MAX_FRAME_BYTES })
    try {
      const asked = this.cause
      await lp.write(encodeJoin({ room, ...(asked ? { fallback: asked } : {}) }), { signal })
      logger.debug('discovery: joined', { relay: r.peerId, room })
      for (;;) {
        const frame = await lp.read({ signal })
        const msg = decodePeers(frame.subarray())
        if (msg.room !== room) {
          logger.warn('discovery: relay answered for another room; ignored', { relay: r.peerId })
          continue
        }
        if (msg.dropped > 0) {
          logger.warn('discovery: relay listed invalid peer ids', { dropped: msg.dropped })
        }
        const self = libp2p.peerId.toString()
        this.init.onPeers(
          r,
          msg.peers.filter((p) => p !== self),
          new Map(Object.entries(msg.fallback ?? {})),
        )
      }
    } catch (err) {
      if (!signal.aborted) {
        logger.debug('discovery: stream ended', { relay: r.peerId, error: errMsg(err) })
      }
      stream.abort(err instanceof Error ? err : new Error(String(err)))
    } finally {
      if (r.discover === stream) r.discover = undefined
      this.init.onChange()
    }
  }
}
