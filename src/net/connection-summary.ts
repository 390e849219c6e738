/**
 * The connections summary a node reports (`SwarmNode.connections()` and its
 * 'connections' event): the best link to each room peer, the relays, and
 * who cannot link directly. Many libp2p events may change it in one turn:
 * they make one event, and only when the summary did change.
 */
import type { Connection, Libp2p } from '@libp2p/interface'
import type { Dialer } from './dialer'
import { unreachable } from './fallback'
import type { LinkPaths } from './link-paths'
import type { RelayClient } from './relay-client'
import type { ConnectionSummary, LinkKind, PeerLink } from './types'

const LINK_RANK: Record<LinkKind, number> = {
  'direct-webrtc': 4,
  other: 3,
  'via-relay': 2,
  relayed: 1,
}

/** How a connection links us; `viaRelay`: a limited one that carries our traffic (fallback.ts). */
export function linkKind(conn: Connection, viaRelay = false): LinkKind {
  if (conn.limits != null) return viaRelay ? 'via-relay' : 'relayed'
  return conn.remoteAddr.getComponents().some((c) => c.name === 'webrtc')
    ? 'direct-webrtc'
    : 'other'
}

/** What the summary is read from. */
export interface SummaryParts {
  libp2p: Libp2p
  /** our PeerId */
  self: string
  relayClient: RelayClient
  dialer: Dialer
  linkPaths: LinkPaths
  /** the room is quiet (quiet-room.ts) */
  quiet: boolean
}

export function connectionSummary({
  libp2p,
  self,
  relayClient,
  dialer,
  linkPaths,
  quiet,
}: SummaryParts): ConnectionSummary {
  const best = new Map<string, PeerLink>()
  for (const c of libp2p.getConnections()) {
    if (c.status !== 'open') continue
    const peer = c.remotePeer.toString()
    if (relayClient.isRelay(peer)) continue
    const kind = linkKind(c, dialer.isFallbackLink(c))
    // a WebRTC link counts once data went both ways over it
    if (kind === 'direct-webrtc' && !linkPaths.carries(c)) continue
    const prev = best.get(peer)
    if (prev === undefined || LINK_RANK[kind] > LINK_RANK[prev.kind]) {
      const path = kind === 'direct-webrtc' ? linkPaths.path(c) : undefined
      best.set(peer, { peerId: peer, kind, ...(path ? { path } : {}) })
    }
  }
  const peers: PeerLink[] = [...best.values()].sort((a, b) => (a.peerId < b.peerId ? -1 : 1))
  const relaysStatus = relayClient.status()
  const cannotLink = dialer.selfFallback()
  const unreachablePeers = [...dialer.fallbackStates()]
    .filter(([peer, state]) => peer !== self && unreachable(state))
    .map(([peerId, state]) => ({ peerId, ...state }))
    .sort((a, b) => (a.peerId < b.peerId ? -1 : 1))
  return {
    relay: relaysStatus.some((r) => r.connected && r.reserved) ? 'up' : 'down',
    relays: relaysStatus,
    peers,
    direct: peers.filter((p) => p.kind === 'direct-webrtc').length,
    relayed: peers.filter((p) => p.kind === 'relayed').length,
    other: peers.filter((p) => p.kind === 'other').length,
    viaRelay: peers.filter((p) => p.kind === 'via-relay').length,
    known: dialer.known,
    quiet,
    ...(cannotLink ? { cannotLink: { ...cannotLink } } : {}),
    unreachable: unreachablePeers,
  }
}

export interface SummaryNotifierInit {
  summary: () => ConnectionSummary
  /** reports a summary that changed */
  emit: (summary: ConnectionSummary) => void
  /** aborted when the node stops: nothing more is reported */
  signal: AbortSignal
}

/**
 * The function to call whenever the summary may have changed: after the
 * current turn, it reads the summary once and emits it if it differs from
 * the last one emitted.
 */
export function summaryNotifier({ summary, emit, signal }: SummaryNotifierInit): () => void {
  let lastSummary = ''
  let summaryQueued = false
  return () => {
    if (summaryQueued || signal.aborted) return
    summaryQueued = true
    setTimeout(() => {
      summaryQueued = false
      if (signal.aborted) return
      const s = summary()
      const key = JSON.stringify(s)
      if (key === lastSummary) return
      lastSummary = key
      emit(s)
    }, 0)
  }
}
