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
 * link closed how, so a link that closes without harm costs nothing. A peer
 * relinked and deaf again waits twice as long each time (up to
 * MAX_DEAF_LINK_AFTER_MS), so a link that never gets its streams does not
 * cost a redial every 20 s.
 *
 * A peer that came back sooner need not wait that long. Its peers dial it
 * only when they hold no link to it, so a new link to a peer whose other
 * link is STALE_LINK_AGE_MS older means the other is gone at the peer's
 * end: it is closed at once (`linkOpened`), before GossipSub opens its
 * streams on the new link. Its read error makes GossipSub drop the peer,
 * and identify on the new link makes GossipSub take it up again there.
 * The two links of a simultaneous dial mostly open less than that apart,
 * and both are kept (constants.ts says what happens when they do not).
 */
import type { Connection, Libp2p } from '@libp2p/interface'
import { DEAF_LINK_AFTER_MS, MAX_DEAF_LINK_AFTER_MS, STALE_LINK_AGE_MS } from './constants'
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

/** A peer's links as one: since its oldest, and the GossipSub streams of all. */
interface PeerLinks {
  since: number
  out: boolean
  in: boolean
}

function byPeer(links: readonly OpenLink[]): Map<string, PeerLinks> {
  const peers = new Map<string, PeerLinks>()
  for (const link of links) {
    const p = peers.get(link.peer) ?? { since: Infinity, out: false, in: false }
    peers.set(link.peer, {
      since: Math.min(p.since, link.openedAt),
      out: p.out || link.gossipOut,
      in: p.in || link.gossipIn,
    })
  }
  return peers
}

/**
 * Is a peer deaf: its links carry no GossipSub stream one way or the other,
 * and it has been linked for at least `afterMs` (its oldest open link
 * counts)? Younger links get the time a new link needs before GossipSub
 * opens its streams on it (identify, then a stream each way).
 */
function isDeaf(p: PeerLinks, now: number, afterMs: number): boolean {
  return !(p.out && p.in) && now - p.since >= afterMs
}

/** The deaf peers among those `links` go to (isDeaf). */
export function deafPeers(
  links: readonly OpenLink[],
  now: number,
  afterMs: (peer: string) => number = () => DEAF_LINK_AFTER_MS,
): string[] {
  return [...byPeer(links)]
    .filter(([peer, p]) => isDeaf(p, now, afterMs(peer)))
    .map(([peer]) => peer)
}

/**
 * The links a new link to the same peer makes stale: those that opened at
 * least `staleAgeMs` before it.
 */
export function staleLinks<L extends Pick<OpenLink, 'peer' | 'openedAt'>>(
  links: readonly L[],
  opened: Pick<OpenLink, 'peer' | 'openedAt'>,
  staleAgeMs: number = STALE_LINK_AGE_MS,
): L[] {
  return links.filter(
    (link) => link.peer === opened.peer && opened.openedAt - link.openedAt >= staleAgeMs,
  )
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

export interface RelinkerInit {
  libp2p: Pick<Libp2p, 'getConnections'>
  /** is this a link of ours (direct, not to a relay)? */
  isLink(conn: Connection): boolean
  logger: NetLogger
  /** default DEAF_LINK_AFTER_MS */
  afterMs?: number
  /** default MAX_DEAF_LINK_AFTER_MS */
  maxAfterMs?: number
  /** default STALE_LINK_AGE_MS */
  staleAgeMs?: number
}

export interface Relinker {
  /** closes the links to every deaf peer; call it every second or so */
  tick(now?: number): void
  /** closes the links a new link makes stale (staleLinks); call it as each link opens */
  linkOpened(conn: Connection): void
}

export function createRelinker(init: RelinkerInit): Relinker {
  const base = init.afterMs ?? DEAF_LINK_AFTER_MS
  const max = init.maxAfterMs ?? MAX_DEAF_LINK_AFTER_MS
  const staleAge = init.staleAgeMs ?? STALE_LINK_AGE_MS
  /** peers relinked and not yet seen with both streams since: how many times */
  const relinked = new Map<string, number>()
  // a room has tens of peers; a long-lived peer sees some leave while counted
  const MAX_TRACKED = 1_024
  const afterMs = (peer: string) => Math.min(max, base * 2 ** (relinked.get(peer) ?? 0))
  const openLinks = () =>
    init.libp2p.getConnections().filter((c) => c.status === 'open' && init.isLink(c))

  return {
    linkOpened(conn) {
      if (!init.isLink(conn)) return
      const opened = { peer: conn.remotePeer.toString(), openedAt: conn.timeline.open }
      const links = openLinks()
        .filter((c) => c !== conn)
        .map((c) => ({ conn: c, peer: c.remotePeer.toString(), openedAt: c.timeline.open }))
      const stale = staleLinks(links, opened, staleAge)
      if (stale.length === 0) return
      init.logger.info('a new link to a peer replaces its stale one', {
        peer: opened.peer,
        // how much older the stale link is
        olderMs: opened.openedAt - Math.min(...stale.map((link) => link.openedAt)),
      })
      for (const link of stale) link.conn.abort(new Error('a newer link to this peer replaces it'))
    },
    tick(now = Date.now()) {
      const links = openLinks()
      for (const [peer, p] of byPeer(links.map(openLink))) {
        if (p.out && p.in) relinked.delete(peer)
        if (!isDeaf(p, now, afterMs(peer))) continue
        const theirs = links.filter((c) => c.remotePeer.toString() === peer)
        init.logger.info('linked peer without GossipSub streams; relinking it afresh', {
          peer,
          links: theirs.length,
          // which way GossipSub has a stream to it, if any
          out: p.out,
          in: p.in,
          times: (relinked.get(peer) ?? 0) + 1,
        })
        if (relinked.size >= MAX_TRACKED) relinked.clear()
        relinked.set(peer, (relinked.get(peer) ?? 0) + 1)
        for (const c of theirs)
          c.abort(new Error('no GossipSub streams on this link: relinking afresh'))
      }
    },
  }
}
