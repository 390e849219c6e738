/**
 * The relay's side of /murmuration/discover/1.0.0 (wire: src/net/discovery-wire.ts).
 *
 * A peer opens a stream, names its room, and keeps the stream open; the relay
 * answers with the other members of that room that hold a reservation, and
 * sends the list again whenever it changes. Membership lasts as long as the
 * stream. The relay keeps nothing else: no plan state, no topics.
 */
import { lpStream, type LengthPrefixedStream } from '@libp2p/utils'
import type { Connection, Stream } from '@libp2p/interface'
import { DISCOVER_MAX_FRAME_BYTES } from '../src/net/constants'
import { decodeJoin, encodePeers } from '../src/net/discovery-wire'
import type { DirectCause, FallbackState } from '../src/net/fallback'
import { errMsg, type NetLogger } from '../src/net/log'
import { RateLimiter } from '../src/net/rate-limit'
import { DEFAULT_ADDRESS_LIMITS, type RefusalLog } from './limits'
import { addressOf } from './limits-gater'

/** A peer must name its room this soon after opening the stream. */
export const DISCOVER_JOIN_TIMEOUT_MS = 5_000

/**
 * Most members of one room. The relay's reservation cap bounds it already;
 * this is a second line for a relay run with a larger one. Equal to the
 * peers one answer may list (DISCOVER_MAX_PEERS_LISTED), so every member
 * of a full room is still listed to the others.
 */
export const DISCOVER_MAX_ROOM_MEMBERS = 1_000

/**
 * Rooms at once. A room costs its name (at most MAX_ROOM_BYTES) and a map;
 * one peer is in one room, so rooms ≤ peers ≤ the relay's connections (2 048).
 * This caps the memory of rooms even when the relay is run with more.
 */
export const DISCOVER_MAX_ROOMS = 2_048

/**
 * Rooms one peer may be in at once: a tab is in one; a tab that changed rooms
 * has the old stream closing while the new one opens. More is a peer making
 * the relay keep rooms (and broadcast to them) for nothing.
 */
export const DISCOVER_MAX_ROOMS_PER_PEER = 2

export interface DiscoveryLimits {
  maxRooms: number
  maxRoomMembers: number
  maxRoomsPerPeer: number
  /** per-address token bucket of discovery requests (limits.ts); per peer for these addresses */
  uncappedAddresses: readonly string[]
  burstPerAddress: number
  refillPerSPerAddress: number
}

export const DEFAULT_DISCOVERY_LIMITS: DiscoveryLimits = {
  maxRooms: DISCOVER_MAX_ROOMS,
  maxRoomMembers: DISCOVER_MAX_ROOM_MEMBERS,
  maxRoomsPerPeer: DISCOVER_MAX_ROOMS_PER_PEER,
  uncappedAddresses: DEFAULT_ADDRESS_LIMITS.uncappedAddresses,
  burstPerAddress: DEFAULT_ADDRESS_LIMITS.discoverBurstPerAddress,
  refillPerSPerAddress: DEFAULT_ADDRESS_LIMITS.discoverRefillPerSPerAddress,
}

/** Refused requests are answered by closing the stream with this error (the log says why). */
export class DiscoveryRefusedError extends Error {
  override readonly name = 'DiscoveryRefusedError'
}

/** How often idle per-address buckets are forgotten (they refill to full meanwhile). */
const BUCKET_PRUNE_MS = 60_000

interface Member {
  peerId: string
  stream: Stream
  lp: LengthPrefixedStream<Stream>
  /**
   * A list is being written / a newer one is due. At most one frame per member
   * is in flight, however fast the room changes: a member that reads slowly
   * costs the relay one frame, not a queue.
   */
  writing: boolean
  dirty: boolean
}

/** The relay's answers to peers that cannot link directly (fallback.ts's FallbackRelay). */
export interface FallbackAnswers {
  request(peer: string, cause: DirectCause): FallbackState
  release(peer: string): void
  state(peer: string): FallbackState | undefined
}

export interface DiscoveryServerInit {
  logger: NetLogger
  /** whether `peerId` currently holds a reservation on this relay */
  hasReservation: (peerId: string) => boolean
  /** relaying for peers that cannot link directly; default: none (a request is ignored, as by an older relay) */
  fallback?: FallbackAnswers
  /** where refusals are logged once per kind and address; default: one of its own */
  refusals: RefusalLog
  limits?: Partial<DiscoveryLimits>
  now?: () => number
}

export class DiscoveryServer {
  private readonly rooms = new Map<string, Map<string, Member>>()
  /** peerId → rooms it is in (bounded by maxRoomsPerPeer) */
  private readonly roomsOf = new Map<string, Set<string>>()
  private readonly limits: DiscoveryLimits
  private readonly buckets: RateLimiter
  private readonly now: () => number
  private prunedAt = 0

  constructor(private readonly init: DiscoveryServerInit) {
    this.limits = { ...DEFAULT_DISCOVERY_LIMITS, ...init.limits }
    this.buckets = new RateLimiter({
      capacity: this.limits.burstPerAddress,
      refillPerS: this.limits.refillPerSPerAddress,
      bytesPerToken: Infinity,
    })
    this.now = init.now ?? Date.now
  }

  /** room → member PeerIds (all, reserved or not); for tests and logs */
  snapshot(): Map<string, string[]> {
    return new Map([...this.rooms].map(([room, m]) => [room, [...m.keys()]]))
  }

  readonly handle = (stream: Stream, connection: Connection): void => {
    void this.serve(stream, connection)
  }

  private async serve(stream: Stream, connection: Connection): Promise<void> {
    const { logger } = this.init
    const peerId = connection.remotePeer.toString()
    // behind a proxy on loopback every peer shares one address: charge each peer instead
    const ip = addressOf(connection.remoteAddr)
    const address = ip === undefined || this.limits.uncappedAddresses.includes(ip) ? peerId : ip
    const lp = lpStream(stream, { maxDataLength: DISCOVER_MAX_FRAME_BYTES })
    let room: string | undefined
    try {
      this.charge(address)
      const first = await lp.read({ signal: AbortSignal.timeout(DISCOVER_JOIN_TIMEOUT_MS) })
      const join = decodeJoin(first.subarray())
      const asked = join.room
      const members = this.admit(asked, peerId, address)
      room = asked
      if (join.fallback !== undefined) {
        const state = this.init.fallback?.request(peerId, join.fallback)
        logger.info('discover: asks to be relayed', { peer: peerId, ...(state ?? {}) })
      }
      // a peer that re-joins (new stream after a glitch) replaces its old entry
      members.get(peerId)?.stream.abort(new Error('replaced by a newer discovery stream'))
      members.set(peerId, { peerId, stream, lp, writing: false, dirty: false })
      let mine = this.roomsOf.get(peerId)
      if (mine === undefined) this.roomsOf.set(peerId, (mine = new Set()))
      mine.add(room)
      logger.info('discover: joined', { peer: peerId, room, members: members.size })
      this.broadcast(room)
      // the client sends nothing more; wait for it to close (or the link to drop)
      // (a frame is a protocol violation: the stream ends, with a debug line)
      await lp.read()
      throw new Error('unexpected frame from a member')
    } catch (err) {
      if (stream.status === 'open')
        stream.abort(err instanceof Error ? err : new Error(String(err)))
      logger.debug('discover: stream ended', { peer: peerId, error: errMsg(err) })
    } finally {
      if (room !== undefined) this.leave(room, peerId, stream)
    }
  }

  /** Takes a token from `address`'s bucket, or throws DiscoveryRefusedError (logged once). */
  private charge(address: string): void {
    const now = this.now()
    if (now - this.prunedAt > BUCKET_PRUNE_MS) {
      this.buckets.prune(now)
      this.prunedAt = now
    }
    if (this.buckets.take(address, 1, now)) return
    const why = `more than ${this.limits.burstPerAddress} discovery requests at once, or ${this.limits.refillPerSPerAddress}/s, from there`
    this.init.refusals.refuse('discovery request', address, why, now)
    throw new DiscoveryRefusedError(why)
  }

  /** The members of `room`, made if need be, if `peerId` may join it; else throws (logged once). */
  private admit(room: string, peerId: string, address: string): Map<string, Member> {
    const { limits } = this
    const refuse = (kind: 'room' | 'room member', why: string): never => {
      this.init.refusals.refuse(kind, address, why, this.now())
      throw new DiscoveryRefusedError(why)
    }
    const mine = this.roomsOf.get(peerId)
    if (mine !== undefined && !mine.has(room) && mine.size >= limits.maxRoomsPerPeer)
      refuse('room member', `a peer in ${mine.size} rooms already (cap ${limits.maxRoomsPerPeer})`)
    let members = this.rooms.get(room)
    if (members === undefined) {
      if (this.rooms.size >= limits.maxRooms)
        refuse('room', `${this.rooms.size} rooms open (cap ${limits.maxRooms})`)
      members = new Map()
      this.rooms.set(room, members)
    }
    if (members.size >= limits.maxRoomMembers && !members.has(peerId))
      refuse('room member', `a room of ${members.size} members (cap ${limits.maxRoomMembers})`)
    return members
  }

  private leave(room: string, peerId: string, stream: Stream): void {
    const members = this.rooms.get(room)
    if (members === undefined) return
    const m = members.get(peerId)
    if (m === undefined || m.stream !== stream) return
    members.delete(peerId)
    this.init.fallback?.release(peerId)
    const mine = this.roomsOf.get(peerId)
    mine?.delete(room)
    if (mine?.size === 0) this.roomsOf.delete(peerId)
    this.init.logger.info('discover: left', { peer: peerId, room, members: members.size })
    if (members.size === 0) this.rooms.delete(room)
    else this.broadcast(room)
  }

  /** A member's relaying changed (fallback.ts): its room's lists say so. */
  changed(peerId: string): void {
    for (const room of this.roomsOf.get(peerId) ?? []) this.broadcast(room)
  }

  /** Sends each member of `room` the list of the others that hold a reservation. */
  private broadcast(room: string): void {
    const members = this.rooms.get(room)
    if (members === undefined) return
    for (const m of members.values()) {
      m.dirty = true
      if (!m.writing) void this.send(room, m)
    }
  }

  /** The relaying of those of `peers` that asked for it. */
  private fallbackOf(peers: string[]): Record<string, FallbackState> {
    const out: Record<string, FallbackState> = {}
    for (const p of peers) {
      const state = this.init.fallback?.state(p)
      if (state !== undefined) out[p] = state
    }
    return out
  }

  /** Writes `m` the room's current list until it has the latest (one frame in flight at most). */
  private async send(room: string, m: Member): Promise<void> {
    m.writing = true
    try {
      while (m.dirty) {
        m.dirty = false
        const members = this.rooms.get(room)
        if (members?.get(m.peerId) !== m) return
        const peers = [...members.keys()].filter(
          (p) => p !== m.peerId && this.init.hasReservation(p),
        )
        await m.lp.write(
          encodePeers({ room, peers, fallback: this.fallbackOf([m.peerId, ...peers]) }),
        )
      }
    } catch (err) {
      this.init.logger.debug('discover: write failed', { peer: m.peerId, error: errMsg(err) })
      m.stream.abort(err instanceof Error ? err : new Error(String(err)))
    } finally {
      m.writing = false
    }
  }
}
