/**
 * Which peers of the room this peer links to directly.
 *
 * A full mesh costs every peer one WebRTC link (and its handshake through
 * the relay) per other peer: fine for a handful of tabs, not for 64 on two
 * cores, where links churned and a 32-peer mesh took minutes to form. So
 * peers sit on a ring ordered by a hash of their PeerId:
 *
 * - In a room of up to BIG_ROOM_PEERS, each links to its `DIRECT_LINKS / 2`
 *   nearest neighbours on either side (a full mesh up to DIRECT_LINKS + 1).
 * - In a bigger room each links to its BIG_ROOM_RING nearest neighbours on
 *   either side, plus BIG_ROOM_SHORTCUTS shortcuts: the peers that rank
 *   highest for it by a rendezvous hash of the pair. A ring alone spans the
 *   room in about n / degree hops (11 at 64 peers with 6 links, 22 at 128),
 *   and every gossip hop is a wait on the plan's critical path. The
 *   shortcuts make the graph a small world with about as many links: on
 *   average 2.0 hops between two peers at 32, 2.5 at 64, 2.9 at 128,
 *   against 3.1, 5.8 and 11.1 on a ring of 6; 6 links a peer on average,
 *   at most 10 to 12. A join moves about three links in the whole room, as
 *   on the ring, because a shortcut depends only on the two peers' ids.
 *
 * A link is wanted when either end picks it. Every peer computes the whole
 * room's picks from the same room list, so both ends of a pair agree.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { BIG_ROOM_PEERS, BIG_ROOM_RING, BIG_ROOM_SHORTCUTS, DIRECT_LINKS } from './constants'

/** How a room of some size links: ring neighbours on each side, and shortcuts a peer picks. */
export interface LinkShape {
  ring: number
  shortcuts: number
}

/** The link shape for a room of `roomSize` peers (self included). */
export function linkShape(roomSize: number): LinkShape {
  return roomSize > BIG_ROOM_PEERS
    ? { ring: BIG_ROOM_RING, shortcuts: BIG_ROOM_SHORTCUTS }
    : { ring: DIRECT_LINKS / 2, shortcuts: 0 }
}

/** Hash caches: bounded, a dropped entry only costs recomputation. */
const CACHE_LIMIT = 200_000
const positions = new Map<string, Uint8Array>()
const weights = new Map<string, number>()
/** graphs by room, most recent last: peers of one process (bench, tests) share them */
const graphs = new Map<string, Map<string, Set<string>>>()
const GRAPHS_KEPT = 16

function remember<V>(cache: Map<string, V>, key: string, value: V, limit: number): V {
  if (cache.size >= limit) cache.delete(cache.keys().next().value!)
  cache.set(key, value)
  return value
}

/** A peer's place on the ring: sha256 of its PeerId (compared bytewise). */
function ringPosition(peerId: string): Uint8Array {
  return (
    positions.get(peerId) ??
    remember(
      positions,
      peerId,
      sha256(new TextEncoder().encode(`murmuration/ring/${peerId}`)),
      CACHE_LIMIT,
    )
  )
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return 0
}

/**
 * How much `peer` wants `other` as a shortcut: the first 6 bytes of a hash
 * of their PeerIds' ring positions, in that order, so the picks of two
 * peers are independent of each other. Remembered: the room is ranked
 * anew each time it changes.
 */
function shortcutWeight(peer: string, other: string): number {
  const key = `${peer}\n${other}`
  let weight = weights.get(key)
  if (weight === undefined) {
    const a = ringPosition(peer)
    const b = ringPosition(other)
    const pair = new Uint8Array(a.length + b.length)
    pair.set(a)
    pair.set(b, a.length)
    const digest = sha256(pair)
    weight = 0
    for (let i = 0; i < 6; i++) weight = weight * 256 + digest[i]!
    remember(weights, key, weight, CACHE_LIMIT)
  }
  return weight
}

/** Every peer's direct links in `room`: symmetric (a link is wanted by both ends or neither). */
export function linkGraph(room: Iterable<string>, shape?: LinkShape): Map<string, Set<string>> {
  const peers = [...new Set(room)]
  return ringGraph(peers, shape ?? linkShape(peers.length))
}

function ringGraph(peers: string[], shape: LinkShape): Map<string, Set<string>> {
  const ring = peers.sort(
    (a, b) => compareBytes(ringPosition(a), ringPosition(b)) || (a < b ? -1 : 1),
  )
  const key = `${shape.ring}/${shape.shortcuts}/${ring.join(',')}`
  const cached = graphs.get(key)
  if (cached) {
    graphs.delete(key) // most recent last
    graphs.set(key, cached)
    return cached
  }
  const n = ring.length
  const links = new Map(ring.map((peer) => [peer, new Set<string>()]))
  const link = (a: string, b: string) => {
    if (a === b) return
    links.get(a)!.add(b)
    links.get(b)!.add(a)
  }
  const half = Math.min(shape.ring, Math.floor((n - 1) / 2))
  ring.forEach((peer, at) => {
    for (let step = 1; step <= half; step++) link(peer, ring[(at + step) % n]!)
    // an odd room of at most 2 × ring + 1 peers: the one left across the ring
    if (2 * half < Math.min(2 * shape.ring, n - 1)) link(peer, ring[(at + half + 1) % n]!)
  })
  if (shape.shortcuts > 0) {
    // picks are made against the ring alone, so they do not depend on the order peers pick in
    const neighbours = new Map(ring.map((peer) => [peer, new Set(links.get(peer))]))
    for (const peer of ring) {
      const near = neighbours.get(peer)!
      // the `shape.shortcuts` heaviest, best first; ties (1 in 2^48) to the lower id
      const best: { other: string; weight: number }[] = []
      for (const other of ring) {
        if (other === peer || near.has(other)) continue
        const weight = shortcutWeight(peer, other)
        const place = best.findIndex(
          (b) => weight > b.weight || (weight === b.weight && other < b.other),
        )
        if (place >= 0) best.splice(place, 0, { other, weight })
        else best.push({ other, weight })
        if (best.length > shape.shortcuts) best.pop()
      }
      for (const { other } of best) link(peer, other)
    }
  }
  return remember(graphs, key, links, GRAPHS_KEPT)
}

/** The peers `self` should hold direct links to, out of `room` (which may include `self`). */
export function linkTargets(self: string, room: Iterable<string>, shape?: LinkShape): Set<string> {
  const all = new Set(room)
  all.add(self)
  return new Set(linkGraph(all, shape ?? linkShape(all.size)).get(self))
}
