/**
 * How this tab's links go, in words (src/net/link-paths.ts finds the
 * paths): for the top bar's counts and the peer list. What a tab says when
 * it cannot link, or a peer is out of reach, is link-notices.ts.
 */
import type { ConnectionSummary, PeerLink } from '../../runtime/types'

export type LinkWay =
  'lan' | 'nat' | 'turn' | 'direct' | 'unknown' | 'relayed' | 'via-relay' | 'other'

/** Words for each way, in the order they are listed (best first). */
export const LINK_WORDS: Record<LinkWay, string> = {
  lan: 'direct on the LAN',
  nat: 'direct through NAT',
  // Chromium hides the address a peer's packets came from when that peer
  // announced only an mDNS name (every page without a media permission): the
  // link is direct, but its report cannot tell the LAN from a NAT
  direct: 'direct (LAN or NAT: the browser does not say which)',
  unknown: 'direct (way not known yet)',
  other: 'direct (WebSocket or TCP)',
  turn: 'relayed through TURN',
  'via-relay': 'through the relay (no direct link possible)',
  relayed: 'via the relay only, no plan traffic yet',
}

/**
 * The same, short, for the top bar's one line; each count there carries its
 * way's whole words (LINK_WORDS) as a tooltip, and the Links list says them.
 */
export const LINK_SHORT: Record<LinkWay, string> = {
  lan: 'direct on the LAN',
  nat: 'direct through NAT',
  direct: 'direct (way hidden)',
  unknown: 'direct (checking)',
  other: 'direct (WebSocket or TCP)',
  turn: 'relayed through TURN',
  'via-relay': 'through the relay',
  relayed: 'relay only, no traffic yet',
}

export function linkWay(link: PeerLink): LinkWay {
  if (link.kind === 'direct-webrtc') return link.path ?? 'unknown'
  return link.kind
}

/** The ways present, best first, with how many links go each way. */
export function linkWayCounts(summary: ConnectionSummary): { way: LinkWay; count: number }[] {
  const counts = new Map<LinkWay, number>()
  for (const p of summary.peers) counts.set(linkWay(p), (counts.get(linkWay(p)) ?? 0) + 1)
  return (Object.keys(LINK_WORDS) as LinkWay[])
    .filter((way) => counts.has(way))
    .map((way) => ({ way, count: counts.get(way)! }))
}

/** "2 direct on the LAN, 1 relayed through TURN": the kinds present, with their counts. */
export function linkCounts(summary: ConnectionSummary, words = LINK_WORDS): string {
  return linkWayCounts(summary)
    .map(({ way, count }) => `${count} ${words[way]}`)
    .join(', ')
}

/** Links that carry plan traffic (direct, TCP/WebSocket, or through the relay for a peer that cannot link directly). */
export function trafficLinks(summary: ConnectionSummary): number {
  return summary.direct + summary.other + summary.viaRelay
}

/**
 * Peers of the room this tab knows of and cannot reach: those the relay
 * named as out of reach, or every peer it knows of when the relay refuses
 * to carry this tab's own traffic. Never counted as absent, nor as present
 * and working.
 */
export function outOfReach(summary: ConnectionSummary): number {
  const self = summary.cannotLink
  if (self?.relaying !== undefined && self.relaying !== 'granted') return summary.known
  return summary.unreachable.length
}

/**
 * Peers of the room are known (the relay named them) but none carries plan
 * traffic: no direct, TURN or relay-carried link, only signalling links.
 */
export function cutOff(summary: ConnectionSummary): boolean {
  return summary.relay === 'up' && summary.known > 0 && trafficLinks(summary) === 0
}

/**
 * Joining a room takes a few seconds (relay, discovery, ICE): say nothing
 * before this. Direct links usually form within 3 s; through TURN within
 * ~1 s more.
 */
export const CUT_OFF_GRACE_MS = 15_000

/** What "resting" means, for the top bar (a quiet room: net/topology.ts quietLinkShape). */
export const RESTING_WORDS = 'resting: few links, to save power'
export const RESTING_DETAIL =
  'Nothing new in the room for a while: this tab keeps links to two neighbours only, to save power. The next goal or result links it to everyone again.'
