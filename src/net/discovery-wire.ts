/**
 * Wire format of /murmuration/discover/1.0.0, shared by the relay (server)
 * and the peers (clients). Pure: no libp2p, no platform code.
 *
 * Frames are length-prefixed (unsigned varint byte length, then the bytes),
 * each a UTF-8 JSON object, at most DISCOVER_MAX_FRAME_BYTES:
 *
 *   client → relay, once:            {"room":"<room>"}
 *   relay → client, at once and then
 *   whenever the room's members change: {"room":"<room>","peers":["<peerId>",…]}
 *
 * `peers` lists the other peers of the room that hold a reservation on the
 * relay (so `<relay>/p2p-circuit/webrtc/p2p/<peerId>` reaches them), never
 * the client itself. The stream stays open; either side may close it, and
 * the client is a member of the room exactly while it is open.
 */
import { peerIdFromString } from '@libp2p/peer-id'
import { MAX_ROOM_BYTES, DISCOVER_MAX_PEERS_LISTED } from './constants'
import { InvalidRoomError, ProtocolViolationError } from './errors'
import { fromUtf8, utf8 } from './bytes'

export interface DiscoverJoin {
  room: string
}

export interface DiscoverPeers {
  room: string
  peers: string[]
}

/** Throws InvalidRoomError unless `room` is a usable room name. */
export function checkRoom(room: string): string {
  if (typeof room !== 'string' || room.length === 0) throw new InvalidRoomError('empty room')
  if (utf8(room).length > MAX_ROOM_BYTES) {
    throw new InvalidRoomError(`room longer than ${MAX_ROOM_BYTES} bytes`)
  }
  return room
}

function parseObject(bytes: Uint8Array): Record<string, unknown> {
  let v: unknown
  try {
    v = JSON.parse(fromUtf8(bytes))
  } catch {
    throw new ProtocolViolationError('discover frame is not JSON')
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new ProtocolViolationError('discover frame is not an object')
  }
  return v as Record<string, unknown>
}

function parseRoom(v: unknown): string {
  if (typeof v !== 'string') throw new ProtocolViolationError('discover frame has no room')
  try {
    return checkRoom(v)
  } catch (err) {
    throw new ProtocolViolationError(`bad room: ${(err as Error).message}`)
  }
}

export function encodeJoin(msg: DiscoverJoin): Uint8Array {
  return utf8(JSON.stringify({ room: checkRoom(msg.room) }))
}

export function decodeJoin(bytes: Uint8Array): DiscoverJoin {
  return { room: parseRoom(parseObject(bytes).room) }
}

export function encodePeers(msg: DiscoverPeers): Uint8Array {
  return utf8(
    JSON.stringify({
      room: checkRoom(msg.room),
      peers: msg.peers.slice(0, DISCOVER_MAX_PEERS_LISTED),
    }),
  )
}

/** Peers that are not valid PeerId strings are dropped, not fatal. */
export function decodePeers(bytes: Uint8Array): DiscoverPeers & { dropped: number } {
  const o = parseObject(bytes)
  const room = parseRoom(o.room)
  if (!Array.isArray(o.peers)) throw new ProtocolViolationError('discover frame has no peers')
  if (o.peers.length > DISCOVER_MAX_PEERS_LISTED) {
    throw new ProtocolViolationError('discover frame lists too many peers')
  }
  const peers: string[] = []
  let dropped = 0
  for (const p of o.peers) {
    if (typeof p === 'string' && isPeerId(p)) peers.push(p)
    else dropped++
  }
  return { room, peers, dropped }
}

export function isPeerId(s: string): boolean {
  try {
    peerIdFromString(s)
    return true
  } catch {
    return false
  }
}
