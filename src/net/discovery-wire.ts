/**
 * Wire format of /murmuration/discover/1.0.0, shared by the relay (server)
 * and the peers (clients). Pure: no libp2p, no platform code.
 *
 * Frames are length-prefixed (unsigned varint byte length, then the bytes),
 * each a UTF-8 JSON object, at most DISCOVER_MAX_FRAME_BYTES:
 *
 *   client → relay, once:            {"room":"<room>"}
 *                      or, to ask it to carry its traffic (fallback.ts):
 *                                    {"room":"<room>","fallback":"no-webrtc"|"ice-failed"}
 *   relay → client, at once and then
 *   whenever the room's members change: {"room":"<room>","peers":["<peerId>",…],
 *                                        "fallback":{"<peerId>":{"cause":…,"relaying":…},…}}
 *
 * `peers` lists the other peers of the room that hold a reservation on the
 * relay (so `<relay>/p2p-circuit/webrtc/p2p/<peerId>` reaches them), never
 * the client itself. `fallback` (optional) holds the members that asked to
 * be relayed, the client itself included: `relaying` is "granted" (reach it
 * over `<relay>/p2p-circuit/p2p/<peerId>`), "off" or "full" (out of reach).
 * A relay that predates it ignores the join's field and sends none back.
 * The stream stays open; either side may close it, and the client is a
 * member of the room exactly while it is open. A client that must ask
 * later (every ICE attempt failed) opens a new stream: it replaces the old.
 */
import { peerIdFromString } from '@libp2p/peer-id'
import { MAX_ROOM_BYTES, DISCOVER_MAX_PEERS_LISTED } from './constants'
import { InvalidRoomError, ProtocolViolationError } from './errors'
import { fromUtf8, utf8 } from './bytes'
import { DIRECT_CAUSES, RELAYINGS, type DirectCause, type FallbackState } from './fallback'

export interface DiscoverJoin {
  room: string
  /** the client cannot link directly, and why: it asks the relay to carry its traffic */
  fallback?: DirectCause
}

export interface DiscoverPeers {
  room: string
  peers: string[]
  /** members that asked to be relayed, and the relay's answer (the client itself included) */
  fallback?: Record<string, FallbackState>
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
  const room = checkRoom(msg.room)
  return utf8(JSON.stringify(msg.fallback ? { room, fallback: msg.fallback } : { room }))
}

export function decodeJoin(bytes: Uint8Array): DiscoverJoin {
  const o = parseObject(bytes)
  const room = parseRoom(o.room)
  if (o.fallback === undefined) return { room }
  if (!DIRECT_CAUSES.includes(o.fallback as DirectCause))
    throw new ProtocolViolationError('discover join has an unknown fallback cause')
  return { room, fallback: o.fallback as DirectCause }
}

export function encodePeers(msg: DiscoverPeers): Uint8Array {
  const peers = msg.peers.slice(0, DISCOVER_MAX_PEERS_LISTED)
  const fallback = Object.entries(msg.fallback ?? {}).slice(0, DISCOVER_MAX_PEERS_LISTED + 1)
  return utf8(
    JSON.stringify({
      room: checkRoom(msg.room),
      peers,
      ...(fallback.length > 0 ? { fallback: Object.fromEntries(fallback) } : {}),
    }),
  )
}

/** One entry of a frame's `fallback`, or undefined when it is not one. */
function parseFallbackState(v: unknown): FallbackState | undefined {
  if (typeof v !== 'object' || v === null) return undefined
  const { cause, relaying } = v as Record<string, unknown>
  if (!DIRECT_CAUSES.includes(cause as DirectCause)) return undefined
  if (!RELAYINGS.includes(relaying as FallbackState['relaying'])) return undefined
  return { cause: cause as DirectCause, relaying: relaying as FallbackState['relaying'] }
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
  if (o.fallback === undefined) return { room, peers, dropped }
  if (typeof o.fallback !== 'object' || o.fallback === null || Array.isArray(o.fallback))
    throw new ProtocolViolationError('discover frame has a bad fallback')
  const entries = Object.entries(o.fallback as Record<string, unknown>)
  if (entries.length > DISCOVER_MAX_PEERS_LISTED + 1)
    throw new ProtocolViolationError('discover frame lists too many fallback peers')
  const fallback: Record<string, FallbackState> = {}
  for (const [peer, v] of entries) {
    const state = parseFallbackState(v)
    if (state !== undefined && isPeerId(peer)) fallback[peer] = state
    else dropped++
  }
  return { room, peers, fallback, dropped }
}

export function isPeerId(s: string): boolean {
  try {
    peerIdFromString(s)
    return true
  } catch {
    return false
  }
}
