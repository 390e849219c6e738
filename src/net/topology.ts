/**
 * Which peers of the room this peer links to directly.
 *
 * A full mesh costs every peer one WebRTC link (and its handshake through
 * the relay) per other peer: fine for a handful of tabs, not for 64 on two
 * cores, where links churned and a 32-peer mesh took minutes to form. So
 * peers sit on a ring ordered by a hash of their PeerId, and each links to
 * its `degree / 2` nearest neighbours on either side. Every peer computes
 * the same ring from the same room list, so both ends of a pair want the
 * link; the ring keeps the graph connected, and GossipSub carries records
 * across it in a few hops (diameter about 2n / degree). A room of at most
 * degree + 1 peers is a full mesh, as before.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { BIG_ROOM_LINKS, BIG_ROOM_PEERS, DIRECT_LINKS } from './constants'

const positions = new Map<string, string>()

function ringPosition(peerId: string): string {
  let at = positions.get(peerId)
  if (at === undefined) {
    at = bytesToHex(sha256(new TextEncoder().encode(`murmuration/ring/${peerId}`)))
    if (positions.size > 4_096) positions.clear()
    positions.set(peerId, at)
  }
  return at
}

/**
 * How many neighbours a peer links to in a room of `roomSize` peers (self
 * included): DIRECT_LINKS, or BIG_ROOM_LINKS above BIG_ROOM_PEERS.
 */
export function linkDegree(roomSize: number): number {
  return roomSize > BIG_ROOM_PEERS ? BIG_ROOM_LINKS : DIRECT_LINKS
}

/** The peers `self` should hold direct links to, out of `room` (which may include `self`). */
export function linkTargets(self: string, room: Iterable<string>, degree: number): Set<string> {
  const others = new Set(room)
  others.delete(self)
  if (others.size <= degree) return others
  const ring = [self, ...others].sort((a, b) => {
    const pa = ringPosition(a)
    const pb = ringPosition(b)
    return pa < pb ? -1 : pa > pb ? 1 : a < b ? -1 : 1
  })
  const at = ring.indexOf(self)
  const targets = new Set<string>()
  const half = Math.ceil(degree / 2)
  for (let step = 1; step <= half; step++) {
    targets.add(ring[(at + step) % ring.length]!)
    targets.add(ring[(at - step + ring.length) % ring.length]!)
  }
  return targets
}
