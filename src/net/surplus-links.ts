/**
 * The links the dialer (dialer.ts) no longer needs, closed: direct links off
 * the shape it wants (topology.ts), after a grace period, and relayed links
 * whose WebRTC signalling is done.
 */
import type { Connection, Libp2p } from '@libp2p/interface'
import { DIRECT_LINKS, RELAYED_LINK_GRACE_MS, SURPLUS_LINK_GRACE_MS } from './constants'
import { closeLink } from './hang-up'
import type { NetLogger } from './log'

export interface SurplusLinksInit {
  logger: NetLogger
  /** our open direct links to room peers (not to a relay) */
  directLinks: () => Connection[]
  /** how long a link stays surplus before it is closed; default SURPLUS_LINK_GRACE_MS */
  graceMs?: number
}

/** What the dialer wants of its direct links at this tick. */
export interface LinkShape {
  /** the peers to link to now (the quiet shape's, in a quiet room) */
  wanted: Set<string>
  /** the peers to link to in an awake room */
  full: Set<string>
  /** how many peers the room has, besides us */
  roomPeers: number
  quiet: boolean
}

export class SurplusLinks {
  /** direct links to peers off our ring: since when each has been unwanted */
  private readonly unwantedSince = new Map<string, number>()
  private readonly graceMs: number

  constructor(private readonly init: SurplusLinksInit) {
    this.graceMs = init.graceMs ?? SURPLUS_LINK_GRACE_MS
  }

  /**
   * Closes direct links that have been surplus for the grace period
   * (SURPLUS_LINK_GRACE_MS):
   * - off our ring in a room bigger than a full mesh (`full`), either end;
   * - in a quiet room, off the quiet shape (`wanted`), but only links we
   *   dialled: the other end closes its own when it is quiet too, so a peer
   *   whose room woke a moment earlier (or that just joined and is still
   *   syncing) keeps the links it dialled, and the two never close and
   *   redial one link in turn.
   * Only while we hold a direct link to every wanted peer (but two, awake):
   * a peer whose neighbours are slow to link keeps the links it has, and so
   * does one whose relay went away (its room list is empty, not smaller).
   */
  close({ wanted, full, roomPeers, quiet }: LinkShape, now: number): void {
    if (!quiet && roomPeers <= DIRECT_LINKS) {
      this.unwantedSince.clear()
      return
    }
    const direct = this.init.directLinks()
    const surplus = direct.filter((c) => {
      const id = c.remotePeer.toString()
      if (roomPeers > DIRECT_LINKS && !full.has(id)) return true
      return quiet && !wanted.has(id) && c.direction === 'outbound'
    })
    const linked = new Set(direct.map((c) => c.remotePeer.toString()))
    let wantedLinked = 0
    for (const id of wanted) if (linked.has(id)) wantedLinked++
    const closable = new Set(surplus.map((c) => c.remotePeer.toString()))
    for (const id of this.unwantedSince.keys()) {
      if (!closable.has(id)) this.unwantedSince.delete(id)
    }
    const slack = quiet ? 0 : 2
    for (const c of surplus) {
      const id = c.remotePeer.toString()
      const since = this.unwantedSince.get(id)
      if (since === undefined) this.unwantedSince.set(id, now)
      else if (now - since >= this.graceMs && wantedLinked >= wanted.size - slack) {
        this.unwantedSince.delete(id)
        this.init.logger.info('surplus direct link closed', { peer: id, quiet })
        closeLink(c, this.init.logger)
      }
    }
  }
}

/**
 * A relayed link to a peer has done its job (it carried the WebRTC
 * signalling) once a direct link to that peer opened after it: close it
 * RELAYED_LINK_GRACE_MS later, so the relay does not hold it open for
 * nothing until its duration limit. A relayed link newer than every direct
 * link is the signalling of a dial under way: the peer came back and its
 * end of our direct link is gone (relink.ts). Closing that one would fail
 * the peer's every dial until a ping caught the stale link.
 */
export function closeSpentRelayedLinks(libp2p: Libp2p, logger: NetLogger): void {
  const conns = libp2p.getConnections().filter((c) => c.status === 'open')
  const direct = new Map<string, number[]>()
  for (const c of conns) {
    if (c.limits != null) continue
    const peer = c.remotePeer.toString()
    direct.set(peer, [...(direct.get(peer) ?? []), c.timeline.open])
  }
  const now = Date.now()
  for (const c of conns) {
    if (c.limits == null) continue
    const opened = direct.get(c.remotePeer.toString()) ?? []
    if (opened.some((at) => at >= c.timeline.open && now - at >= RELAYED_LINK_GRACE_MS)) {
      closeLink(c, logger)
    }
  }
}
