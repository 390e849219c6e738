/**
 * Links to a peer that came back under the same PeerId.
 *
 * A tab that reloads, or an agent restarted with its key, dials the room
 * again under its old PeerId, while its old link may hang unclosed until a
 * ping catches it (LINK_PING_MIN_TIMEOUT_MS on Node, 5 s in tabs). GossipSub
 * cannot live with two links to one peer coming and going:
 * - it keeps one outbound stream per peer, on the first link it was told of,
 *   and never moves it, so what we publish goes into the hung link;
 * - when that link finally fails, its read error makes GossipSub drop the
 *   peer altogether, closing its streams on the new link too, and nothing
 *   brings them back while that link stays up: the peer hears from us only
 *   by anti-entropy (every 20 s), and we stop reading what it sends.
 *
 * So, for direct links:
 * - a link that opens to a peer we have an older link to probes the older
 *   one (an identify exchange, at most RELINK_PROBE_TIMEOUT_MS) and aborts it
 *   if it does not answer;
 * - a link that closes while the peer keeps others closes those too: with no
 *   link left, GossipSub forgets the peer cleanly on both sides, and the
 *   dialer links to it afresh.
 *
 * A live duplicate (both ends dialled at once) answers the probe and stays.
 * One that answers too late on a loaded machine is closed for nothing, which
 * costs a redial.
 */
import type { Identify } from '@libp2p/identify'
import type { Connection, Libp2p } from '@libp2p/interface'
import { RELINK_PROBE_TIMEOUT_MS } from './constants'
import type { NetLogger } from './log'

export interface RelinksInit {
  libp2p: Libp2p<{ identify: Identify }>
  /** is this a link of ours (direct, not to a relay)? whatever its status */
  isLink(conn: Connection): boolean
  logger: NetLogger
  /** the node stopping */
  signal: AbortSignal
  /** default RELINK_PROBE_TIMEOUT_MS */
  probeTimeoutMs?: number
}

/** Watches links opening and closing, for as long as the node runs. */
export function watchRelinks(init: RelinksInit): void {
  const { libp2p, logger, signal } = init
  const probeMs = init.probeTimeoutMs ?? RELINK_PROBE_TIMEOUT_MS

  const otherLinks = (conn: Connection): Connection[] =>
    libp2p
      .getConnections(conn.remotePeer)
      .filter((c) => c !== conn && c.status === 'open' && init.isLink(c))

  const probe = (conn: Connection): Promise<unknown> =>
    libp2p.services.identify.identify(conn, {
      signal: AbortSignal.any([signal, AbortSignal.timeout(probeMs)]),
    })

  const opened = (evt: CustomEvent<Connection>): void => {
    const conn = evt.detail
    if (!init.isLink(conn)) return
    for (const older of otherLinks(conn)) {
      if (older.timeline.open > conn.timeline.open) continue
      probe(older).catch((err: unknown) => {
        if (signal.aborted || older.status !== 'open') return
        logger.info('older link to a peer that linked again does not answer; aborted', {
          peer: conn.remotePeer.toString(),
          error: (err as Error).message,
        })
        older.abort(new Error('older link to a peer that linked again did not answer'))
      })
    }
  }

  const closed = (evt: CustomEvent<Connection>): void => {
    const conn = evt.detail
    if (signal.aborted || !init.isLink(conn)) return
    const remaining = otherLinks(conn)
    if (remaining.length === 0) return
    logger.info('a link to a peer closed while others remain; closing those, to relink afresh', {
      peer: conn.remotePeer.toString(),
      links: remaining.length,
    })
    for (const other of remaining) other.abort(new Error('relinking afresh'))
  }

  libp2p.addEventListener('connection:open', opened)
  libp2p.addEventListener('connection:close', closed)
  signal.addEventListener(
    'abort',
    () => {
      libp2p.removeEventListener('connection:open', opened)
      libp2p.removeEventListener('connection:close', closed)
    },
    { once: true },
  )
}
