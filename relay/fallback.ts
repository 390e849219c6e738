/**
 * The relay carries the traffic of peers that cannot link directly
 * (src/net/fallback.ts), within limits its operator sets.
 *
 * For every other peer the relay only signals WebRTC: its relayed links end
 * after RELAY_LINK_DURATION_MS or RELAY_LINK_DATA_BYTES. A peer that names
 * its room with a `fallback` cause (discovery, PROTOCOL.md §1) is granted or
 * refused here. Granted, its reservation's limit is raised to the fallback
 * link's (circuit relay v2 applies the limit of the reservation of the peer
 * dialled, and a relayed peer is always the one dialled), and each new
 * relayed link to it is checked by the connection gater
 * (`denyOutboundRelayedConnection`): at most `linksPerPeer` at once, each
 * charged its whole allowance (`linkBytes`) against the peer's hourly
 * budget and the relay's. What it can cost the relay at most:
 * `totalBytesPerHour` an hour, `peerBytesPerHour` of it for one peer
 * (docs/ARCHITECTURE.md, "A peer that cannot link directly").
 */
import type { PeerId } from '@libp2p/interface'
import type { Limit } from '@libp2p/circuit-relay-v2'
import type { DirectCause, FallbackState } from '../src/net/fallback'
import { RateLimiter } from '../src/net/rate-limit'
import type { RefusalLog } from './limits'

/** Relaying for peers that cannot link directly: on unless the operator turns it off. */
export const FALLBACK_ENABLED = true
/**
 * Peers relayed at once, in total. Each costs the relay its links' bytes
 * (a room's gossip, a few KiB a second while a plan runs) and two circuits.
 */
export const FALLBACK_MAX_PEERS = 16
/**
 * Relayed links to one such peer at once: its two ring neighbours
 * (fallback.ts FALLBACK_SHAPE), and room for one being replaced.
 */
export const FALLBACK_LINKS_PER_PEER = 4
/**
 * What one relayed link may carry before the relay ends it (both ways). A
 * plan of a few dozen leaves is a few hundred records of 1 to 4 KiB, each
 * received once or twice, plus presence beats: about 1 MiB. The link is
 * dialled again when it ends.
 */
export const FALLBACK_LINK_BYTES = 8n << 20n
/** How long one relayed link may last before the relay ends it (it is dialled again). */
export const FALLBACK_LINK_DURATION_MS = 30 * 60_000
/** What one relayed peer may take in an hour: 8 links' allowances. */
export const FALLBACK_PEER_BYTES_PER_HOUR = 64 * 2 ** 20
/** What all relayed peers may take in an hour: 64 links' allowances, about 1.2 Mbit/s at most. */
export const FALLBACK_TOTAL_BYTES_PER_HOUR = 512 * 2 ** 20

export interface FallbackLimits {
  /** false: every peer that asks is refused ("off") */
  enabled: boolean
  maxPeers: number
  linksPerPeer: number
  linkBytes: bigint
  linkDurationMs: number
  peerBytesPerHour: number
  totalBytesPerHour: number
}

export const DEFAULT_FALLBACK_LIMITS: FallbackLimits = {
  enabled: FALLBACK_ENABLED,
  maxPeers: FALLBACK_MAX_PEERS,
  linksPerPeer: FALLBACK_LINKS_PER_PEER,
  linkBytes: FALLBACK_LINK_BYTES,
  linkDurationMs: FALLBACK_LINK_DURATION_MS,
  peerBytesPerHour: FALLBACK_PEER_BYTES_PER_HOUR,
  totalBytesPerHour: FALLBACK_TOTAL_BYTES_PER_HOUR,
}

/** The circuit relay's reservation of a peer, as far as this module touches it. */
interface Reservation {
  limit?: Limit
}

export interface FallbackRelayInit {
  limits: FallbackLimits
  refusals: RefusalLog
  /** the circuit relay server's reservation of `peer` (its limit is raised while relayed) */
  reservationOf: (peer: string) => Reservation | undefined
  /** relayed links open to `peer` now (circuits whose far end is it) */
  linksTo: (peer: string) => number
  /** a peer's state changed: the room lists must say so */
  onChange: (peer: string) => void
  now?: () => number
}

const TOTAL = 'total'

export class FallbackRelay {
  private readonly asked = new Map<
    string,
    { cause: DirectCause; relaying: FallbackState['relaying'] }
  >()
  private readonly perPeer: RateLimiter
  private readonly total: RateLimiter
  private readonly now: () => number

  constructor(private readonly init: FallbackRelayInit) {
    const { limits } = init
    const links = (bytes: number) => Math.max(0, Math.floor(bytes / Number(limits.linkBytes)))
    // one token is one link's allowance
    const bucket = (capacity: number) => ({
      capacity,
      refillPerS: capacity / 3600,
      bytesPerToken: Infinity,
    })
    this.perPeer = new RateLimiter(bucket(links(limits.peerBytesPerHour)))
    this.total = new RateLimiter(bucket(links(limits.totalBytesPerHour)))
    this.now = init.now ?? Date.now
  }

  /** A member names its room and asks to be relayed: the answer, kept until it leaves. */
  request(peer: string, cause: DirectCause): FallbackState {
    const { limits } = this.init
    const granted = [...this.asked.values()].filter((a) => a.relaying === 'granted').length
    const previous = this.asked.get(peer)
    const relaying = !limits.enabled
      ? 'off'
      : previous?.relaying === 'granted' || granted < limits.maxPeers
        ? this.affordable(peer)
          ? 'granted'
          : 'full'
        : 'full'
    this.asked.set(peer, { cause, relaying })
    if (relaying === 'granted') this.raiseLimit(peer)
    else this.init.refusals.refuse('relayed peer', peer, this.why(relaying), this.now())
    return { cause, relaying }
  }

  /** Its discovery stream ended: it is no longer relayed. */
  release(peer: string): void {
    this.asked.delete(peer)
  }

  /** What was answered to `peer`, if it asked. */
  state(peer: string): FallbackState | undefined {
    const a = this.asked.get(peer)
    return a === undefined ? undefined : { cause: a.cause, relaying: a.relaying }
  }

  /**
   * The gater's check of a new relayed link from `src` to `dst`: true
   * refuses it. A peer that did not ask is not this module's concern (its
   * links are signalling links, with the relay's usual limits).
   */
  denyLink(src: PeerId, dst: PeerId): boolean {
    const peer = dst.toString()
    const asked = this.asked.get(peer)
    if (asked === undefined) return false
    const now = this.now()
    const refuse = (why: string): boolean => {
      this.init.refusals.refuse('relayed link', src.toString(), why, now)
      return true
    }
    if (asked.relaying !== 'granted') return refuse(`${peer} is not relayed (${asked.relaying})`)
    const { limits } = this.init
    if (this.init.linksTo(peer) >= limits.linksPerPeer)
      return refuse(`${peer} has ${limits.linksPerPeer} relayed links already`)
    if (!this.affordable(peer)) {
      asked.relaying = 'full'
      this.init.onChange(peer)
      return refuse(`the hour's budget of relayed bytes is spent (${peer}'s or the relay's)`)
    }
    this.perPeer.take(peer, 1, now)
    this.total.take(TOTAL, 1, now)
    // the reservation may be new since the grant (a reconnect makes a new one)
    this.raiseLimit(peer)
    return false
  }

  /** Peers refused for the hour's budget that can afford a link again are granted again. */
  tick(): void {
    const granted = [...this.asked.values()].filter((a) => a.relaying === 'granted').length
    let room = this.init.limits.maxPeers - granted
    for (const [peer, asked] of this.asked) {
      if (asked.relaying !== 'full' || room <= 0 || !this.affordable(peer)) continue
      asked.relaying = 'granted'
      room--
      this.raiseLimit(peer)
      this.init.onChange(peer)
    }
    this.perPeer.prune(this.now())
  }

  private affordable(peer: string): boolean {
    const now = this.now()
    return this.perPeer.tokens(peer, now) >= 1 && this.total.tokens(TOTAL, now) >= 1
  }

  private raiseLimit(peer: string): void {
    const reservation = this.init.reservationOf(peer)
    if (reservation === undefined) return
    // the same units as the server's defaults (defaultDurationLimit: ms)
    reservation.limit = {
      data: this.init.limits.linkBytes,
      duration: this.init.limits.linkDurationMs,
    }
  }

  private why(relaying: FallbackState['relaying']): string {
    return relaying === 'off'
      ? 'relaying for peers that cannot link directly is off'
      : `${this.init.limits.maxPeers} peers relayed at once, or the hour's budget spent`
  }
}
