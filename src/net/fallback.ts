/**
 * A peer that cannot make direct links takes part through the relay.
 *
 * Direct links (WebRTC) carry the room's traffic; the relay only signals
 * them. A tab whose browser has no WebRTC at all (none built in, or turned
 * off by a setting, an extension or a company policy), or whose every ICE
 * attempt failed, would hear nothing. Such a peer asks the relay, when it
 * names its room (discovery, PROTOCOL.md §1), to carry its traffic: its
 * neighbours then reach it over circuit relay v2 (`<relay>/p2p-circuit/p2p/<it>`,
 * no WebRTC), and GossipSub and sync run on those links although libp2p
 * marks them limited (swarm.ts, gossip.ts). The relay grants it within the
 * limits its operator set (relay/fallback.ts), or refuses ("off", "full"),
 * and tells every member of the room which peers are relayed and which are
 * out of reach, and why, so every tab can say so.
 *
 * Everything here is pure: who links to a relayed peer, who dials, and when
 * a tab with WebRTC concludes that every direct attempt failed.
 */
import { linkGraph, type LinkShape } from './topology'

/** Why a peer cannot link directly. */
export type DirectCause =
  /** its browser has no RTCPeerConnection (WebRTC missing or turned off) */
  | 'no-webrtc'
  /** it has WebRTC, but every attempt to link to the room's peers failed */
  | 'ice-failed'

export const DIRECT_CAUSES: readonly DirectCause[] = ['no-webrtc', 'ice-failed']

/** What the relay does for such a peer. */
export type Relaying =
  /** it carries the peer's links, within its limits */
  | 'granted'
  /** its operator turned relaying off */
  | 'off'
  /** its limits are reached (peers at once, or the bytes of the hour) */
  | 'full'

export const RELAYINGS: readonly Relaying[] = ['granted', 'off', 'full']

/** A peer that asked the relay to carry its traffic, and the answer. */
export interface FallbackState {
  cause: DirectCause
  relaying: Relaying
}

/**
 * The links of a relayed peer: its ring neighbours, one on either side, as
 * in a quiet room (topology.ts). Every byte of them crosses the relay, and
 * GossipSub sends each message once per mesh link: two links keep it in the
 * mesh, and in the room when either neighbour goes.
 */
export const FALLBACK_SHAPE: LinkShape = { ring: 1, shortcuts: 0 }

/**
 * A tab that has WebRTC concludes that every direct attempt failed only
 * after this long knowing room peers, never having held a direct link, and
 * with FALLBACK_MIN_FAILURES failed dials to each of them. Long, because the
 * conclusion holds for the session: on a loaded machine a first link can
 * take 15 s, and a peer frozen in a background tab fails dials for a while.
 */
export const ICE_FAILED_AFTER_MS = 60_000
export const FALLBACK_MIN_FAILURES = 3

/** A peer the relay carries: linked through it, never over WebRTC. */
export function relayed(state: FallbackState | undefined): boolean {
  return state?.relaying === 'granted'
}

/** A peer that asked and was refused: in the room, out of reach. */
export function unreachable(state: FallbackState | undefined): boolean {
  return state !== undefined && state.relaying !== 'granted'
}

/**
 * The peers `self` links to through the relay, out of `members` (the room,
 * `self` included or not): the neighbours of a relayed peer on a ring of
 * every member but those out of reach. A pair is linked when either end is
 * relayed and they are neighbours; both ends compute it from the same list.
 */
export function fallbackTargets(
  self: string,
  members: Iterable<string>,
  fallback: ReadonlyMap<string, FallbackState>,
): Set<string> {
  const ring = new Set([...members].filter((p) => !unreachable(fallback.get(p))))
  if (unreachable(fallback.get(self))) return new Set()
  ring.add(self)
  const graph = linkGraph(ring, FALLBACK_SHAPE)
  const targets = new Set<string>()
  for (const other of graph.get(self) ?? []) {
    if (relayed(fallback.get(self)) || relayed(fallback.get(other))) targets.add(other)
  }
  return targets
}

/**
 * Whether `self` dials its relayed link to `other`. The relay applies the
 * limits of the reservation of the peer dialled, so a relayed peer is always
 * the one dialled: a direct-capable peer dials a relayed one; between two
 * relayed peers the lower PeerId dials.
 */
export function dialsFallback(
  self: string,
  other: string,
  fallback: ReadonlyMap<string, FallbackState>,
): boolean {
  const selfRelayed = relayed(fallback.get(self))
  const otherRelayed = relayed(fallback.get(other))
  if (selfRelayed && otherRelayed) return self < other
  return otherRelayed
}

/** What the dialer knows when it asks whether every direct attempt failed. */
export interface DirectAttempts {
  /** when this peer first knew a room peer it could dial directly (ms), or undefined */
  knownSince: number | undefined
  /** it has held a direct link to a room peer at some point */
  everLinked: boolean
  /** failed dials to each room peer it could dial directly */
  failures: readonly number[]
}

/** Every direct attempt failed: time to ask the relay (ICE_FAILED_AFTER_MS says when). */
export function iceFailed(attempts: DirectAttempts, now: number): boolean {
  if (attempts.everLinked || attempts.knownSince === undefined) return false
  if (now - attempts.knownSince < ICE_FAILED_AFTER_MS) return false
  return attempts.failures.length > 0 && attempts.failures.every((f) => f >= FALLBACK_MIN_FAILURES)
}
