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
 *   either side, plus BIG_ROOM_SHORTCUTS shortcuts: the first peers in
 *   rendezvous order for the subject `shortcut:<its PeerId>`. A ring alone
 *   spans the room in about n / degree hops (11 at 64 peers with 6 links, 22 at 128),
 *   and every gossip hop is a wait on the plan's critical path. The
 *   shortcuts make the graph a small world with about as many links: on
 *   average 2.0 hops between two peers at 32, 2.5 at 64, 2.9 at 128,
 *   against 3.1, 5.8 and 11.1 on a ring of 6; 6 links a peer on average,
 *   at most 10 to 12. A join moves about three links in the whole room, as
 *   on the ring: a newcomer changes only the picks of the few peers for
 *   whom it outranks a shortcut they had.
 *
 * A quiet room (quietAfterMs: a minute without a record or a newcomer, 15 s
 * once its plan is over) needs links only to carry beats and the first
 * record of new work: its peers keep a thinner shape (quietLinkShape) until
 * that record comes.
 *
 * A link is wanted when either end picks it. Every peer computes the whole
 * room's picks from the same room list, so both ends of a pair agree.
 */
import { sha256 } from '../protocol/sha256'
import { bytesToHex } from '@noble/hashes/utils.js'
import { remember, rendezvousOrder } from '../protocol/hash'
import {
  BIG_ROOM_PEERS,
  BIG_ROOM_RING,
  BIG_ROOM_SHORTCUTS,
  DIRECT_LINKS,
  QUIET_LINKS_AFTER_MS,
} from './constants'
import { OVER_ROOM_AFTER_MS } from '../protocol/rules'

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

/**
 * The link shape of a quiet room (no plan record for QUIET_LINKS_AFTER_MS):
 * one ring neighbour on either side, so every peer keeps two links and the
 * room stays connected when any one peer goes; a big room adds one shortcut
 * a peer, so a beat still crosses it in a few hops, not n / 2.
 */
export function quietLinkShape(roomSize: number): LinkShape {
  return { ring: 1, shortcuts: roomSize > BIG_ROOM_PEERS ? 1 : 0 }
}

/**
 * How long after the last activity (a record, a newcomer) a room is quiet:
 * `after` (QUIET_LINKS_AFTER_MS), or the plan layer's OVER_ROOM_AFTER_MS if
 * sooner once its plan is over: links thin out when beats slow down.
 */
export function quietAfterMs(planOver: boolean, after = QUIET_LINKS_AFTER_MS): number {
  return planOver ? Math.min(after, OVER_ROOM_AFTER_MS) : after
}

/** ring positions by PeerId */
const positions = new Map<string, string>()
/** graphs by room, most recent last: peers of one process (bench, tests) share them */
const graphs = new Map<string, Map<string, Set<string>>>()
const GRAPHS_KEPT = 16

/** A peer's place on the ring: the hex SHA-256 of its PeerId, tagged. */
function ringPosition(peerId: string): string {
  let at = positions.get(peerId)
  if (at === undefined) {
    at = bytesToHex(sha256(new TextEncoder().encode(`murmuration/ring/${peerId}`)))
    remember(positions, peerId, at)
  }
  return at
}

/** The subject whose rendezvous order ranks a peer's shortcuts (PROTOCOL.md §1). */
const shortcutSubject = (peer: string) => `shortcut:${peer}`

/** Every peer's direct links in `room`: symmetric (a link is wanted by both ends or neither). */
export function linkGraph(room: Iterable<string>, given?: LinkShape): Map<string, Set<string>> {
  const ring = [...new Set(room)].sort((a, b) => {
    const pa = ringPosition(a)
    const pb = ringPosition(b)
    return pa < pb ? -1 : pa > pb ? 1 : a < b ? -1 : 1
  })
  const shape = given ?? linkShape(ring.length)
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
      const others = ring.filter((other) => other !== peer && !near.has(other))
      for (const other of rendezvousOrder(shortcutSubject(peer), others).slice(0, shape.shortcuts))
        link(peer, other)
    }
  }
  if (graphs.size >= GRAPHS_KEPT) graphs.delete(graphs.keys().next().value!)
  graphs.set(key, links)
  return links
}

/** The peers `self` should hold direct links to, out of `room` (which may include `self`). */
export function linkTargets(self: string, room: Iterable<string>, shape?: LinkShape): Set<string> {
  const all = new Set(room)
  all.add(self)
  return new Set(linkGraph(all, shape ?? linkShape(all.size)).get(self))
}
