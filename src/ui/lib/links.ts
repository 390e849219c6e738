/**
 * How this tab's links go, in words (src/net/link-paths.ts finds the
 * paths): for the top bar's counts, the peer list, and the notice shown
 * when the tab cannot link to anyone directly.
 */
import type { ConnectionSummary, PeerLink } from '../../runtime/types'

export type LinkWay = 'lan' | 'nat' | 'turn' | 'direct' | 'relayed' | 'other'

/** Words for each way, in the order they are listed (best first). */
export const LINK_WORDS: Record<LinkWay, string> = {
  lan: 'direct on the LAN',
  nat: 'direct through NAT',
  direct: 'direct',
  other: 'direct (WebSocket or TCP)',
  turn: 'relayed through TURN',
  relayed: 'via the relay only, no plan traffic yet',
}

export function linkWay(link: PeerLink): LinkWay {
  if (link.kind === 'direct-webrtc') return link.path ?? 'direct'
  return link.kind
}

/** "2 direct on the LAN, 1 relayed through TURN": the kinds present, with their counts. */
export function linkCounts(summary: ConnectionSummary): string {
  const counts = new Map<LinkWay, number>()
  for (const p of summary.peers) counts.set(linkWay(p), (counts.get(linkWay(p)) ?? 0) + 1)
  return (Object.keys(LINK_WORDS) as LinkWay[])
    .filter((way) => counts.has(way))
    .map((way) => `${counts.get(way)} ${LINK_WORDS[way]}`)
    .join(', ')
}

/**
 * Peers of the room are known (the relay named them) but none carries plan
 * traffic: no direct or TURN link, only the relay's signalling links.
 */
export function cutOff(summary: ConnectionSummary): boolean {
  return summary.relay === 'up' && summary.known > 0 && summary.direct + summary.other === 0
}

/**
 * Joining a room takes a few seconds (relay, discovery, ICE): say nothing
 * before this. Direct links usually form within 3 s; through TURN within
 * ~1 s more.
 */
export const CUT_OFF_GRACE_MS = 15_000

/** What to do about it, for the person who started the app or for a friend. */
export function cutOffAdvice(host: boolean): string {
  return host
    ? 'Start the app with a TURN server: npm start -- --turn turn:YOUR-HOST:3478 --turn-secret … (README: “Invite a friend anywhere”).'
    : 'Ask whoever sent you this link to set up a TURN server (their README: “Invite a friend anywhere”), or join from their network.'
}
