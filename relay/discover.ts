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
import { errMsg, type NetLogger } from '../src/net/log'

/** A peer must name its room this soon after opening the stream. */
export const DISCOVER_JOIN_TIMEOUT_MS = 5_000

/**
 * Most members of one room. The relay's reservation cap bounds it already;
 * this is a second line for a relay run with a larger one.
 */
export const DISCOVER_MAX_ROOM_MEMBERS = 1_000

interface Member {
  peerId: string
  stream: Stream
  lp: LengthPrefixedStream<Stream>
}

export interface DiscoveryServerInit {
  logger: NetLogger
  /** whether `peerId` currently holds a reservation on this relay */
  hasReservation: (peerId: string) => boolean
}

export class DiscoveryServer {
  private readonly rooms = new Map<string, Map<string, Member>>()

  constructor(private readonly init: DiscoveryServerInit) {}

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
    const lp = lpStream(stream, { maxDataLength: DISCOVER_MAX_FRAME_BYTES })
    let room: string | undefined
    try {
      const first = await lp.read({ signal: AbortSignal.timeout(DISCOVER_JOIN_TIMEOUT_MS) })
      room = decodeJoin(first.subarray()).room
      let members = this.rooms.get(room)
      if (members === undefined) {
        members = new Map()
        this.rooms.set(room, members)
      }
      if (members.size >= DISCOVER_MAX_ROOM_MEMBERS && !members.has(peerId)) {
        throw new Error(`room ${room} is full`)
      }
      // a peer that re-joins (new stream after a glitch) replaces its old entry
      members.get(peerId)?.stream.abort(new Error('replaced by a newer discovery stream'))
      members.set(peerId, { peerId, stream, lp })
      logger.info('discover: joined', { peer: peerId, room, members: members.size })
      this.broadcast(room)
      // the client sends nothing more; wait for it to close (or the link to drop)
      for (;;) {
        await lp.read()
        logger.warn('discover: unexpected frame from a member; ignored', { peer: peerId })
      }
    } catch (err) {
      if (stream.status === 'open')
        stream.abort(err instanceof Error ? err : new Error(String(err)))
      logger.debug('discover: stream ended', { peer: peerId, error: errMsg(err) })
    } finally {
      if (room !== undefined) this.leave(room, peerId, stream)
    }
  }

  private leave(room: string, peerId: string, stream: Stream): void {
    const members = this.rooms.get(room)
    if (members === undefined) return
    const m = members.get(peerId)
    if (m === undefined || m.stream !== stream) return
    members.delete(peerId)
    this.init.logger.info('discover: left', { peer: peerId, room, members: members.size })
    if (members.size === 0) this.rooms.delete(room)
    else this.broadcast(room)
  }

  /** Sends each member of `room` the list of the others that hold a reservation. */
  private broadcast(room: string): void {
    const members = this.rooms.get(room)
    if (members === undefined) return
    const reserved = [...members.keys()].filter((p) => this.init.hasReservation(p))
    for (const m of members.values()) {
      const frame = encodePeers({ room, peers: reserved.filter((p) => p !== m.peerId) })
      m.lp.write(frame).catch((err: unknown) => {
        this.init.logger.debug('discover: write failed', { peer: m.peerId, error: errMsg(err) })
        m.stream.abort(err instanceof Error ? err : new Error(String(err)))
      })
    }
  }
}
