/**
 * Relinking a peer that GossipSub can no longer reach over a standing link.
 *
 * libp2p allows two links to one peer: both ends dialled at once, or a peer
 * came back under its PeerId (a reloaded tab, a restarted agent, a laptop
 * back on the network) while its old link hangs until a ping catches it.
 * GossipSub keeps one stream each way per peer, on the link it heard of
 * first, and never moves them:
 * - when that link closes cleanly, both ends lose their streams to each
 *   other and open none on the link that stands (they open one only when
 *   told of a new link);
 * - when it fails, the read error makes GossipSub drop the peer altogether,
 *   closing its streams on the other link too.
 * Either way the peers stay linked but gossip nothing to each other; they
 * hear each other only by anti-entropy (every 20 s).
 *
 * So a peer we have had a direct link to for DEAF_LINK_AFTER_MS, and whose
 * links carry no GossipSub stream one way or the other, is relinked: its
 * links are closed, GossipSub at both ends forgets it cleanly, and the
 * dialer links to it afresh. The rule looks at the streams, not at which
 * link closed how, so a link that closes without harm costs nothing.
 */
import type { Connection, Libp2p } from '@libp2p/interface'
import { DEAF_LINK_AFTER_MS } from './constants'
import type { NetLogger } from './log'

/** GossipSub's streams are on this protocol (any version) */
const GOSSIP_PROTOCOL_PREFIX = '/meshsub/'

export interface OpenLink {
  peer: string
  /** when the link opened (ms, the clock of `now`) */
  openedAt: number
  /** does it carry an open GossipSub stream we send on (outbound), one we read (inbound)? */
  gossipOut: boolean
  gossipIn: boolean
}

/**
 * Peers that have had a link for at least `afterMs` (their oldest open link
 * counts) and whose links carry no GossipSub stream one way or the other.
 * Younger links get the time a new link needs before GossipSub opens its
 * streams on it (identify, then a stream each way).
 */
export function deafPeers(
  links: readonly OpenLink[],
  now: number,
  afterMs = DEAF_LINK_AFTER_MS,
): string[] {
  const peers = new Map<string, { since: number; out: boolean; in: boolean }>()
  for (const link of links) {
    const p = peers.get(link.peer) ?? { since: Infinity, out: false, in: false }
    peers.set(link.peer, {
      since: Math.min(p.since, link.openedAt),
      out: p.out || link.gossipOut,
      in: p.in || link.gossipIn,
    })
  }
  return [...peers]
    .filter(([, p]) => now - p.since >= afterMs && !(p.out && p.in))
    .map(([peer]) => peer)
}

/** A link as deafPeers sees it. */
export function openLink(conn: Connection): OpenLink {
  const gossip = conn.streams.filter(
    (s) => s.status === 'open' && s.protocol?.startsWith(GOSSIP_PROTOCOL_PREFIX) === true,
  )
  return {
    peer: conn.remotePeer.toString(),
    openedAt: conn.timeline.open,
    gossipOut: gossip.some((s) => s.direction === 'outbound'),
    gossipIn: gossip.some((s) => s.direction === 'inbound'),
  }
}

export interface RelinkInit {
  libp2p: Pick<Libp2p, 'getConnections'>
  /** is this a link of ours (direct, not to a relay)? */
  isLink(conn: Connection): boolean
  logger: NetLogger
  /** default DEAF_LINK_AFTER_MS */
  afterMs?: number
}

/** Closes the links to every deaf peer (deafPeers); call it every few seconds. */
export function relinkDeafPeers(init: RelinkInit, now = Date.now()): void {
  const links = init.libp2p.getConnections().filter((c) => c.status === 'open' && init.isLink(c))
  for (const peer of deafPeers(links.map(openLink), now, init.afterMs)) {
    const theirs = links.filter((c) => c.remotePeer.toString() === peer)
    init.logger.info('linked peer without GossipSub streams; relinking it afresh', {
      peer,
      links: theirs.length,
      // which way GossipSub has a stream to it, if any
      out: theirs.some((c) => openLink(c).gossipOut),
      in: theirs.some((c) => openLink(c).gossipIn),
    })
    for (const c of theirs)
      c.abort(new Error('no GossipSub streams on this link: relinking afresh'))
  }
}
