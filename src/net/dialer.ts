/**
 * Links us directly to our neighbours in the room (everyone in a room of up
 * to DIRECT_LINKS + 1 peers; see topology.ts). libp2p does not dial
 * discovered peers by itself, so this does, over WebRTC signalled through the
 * relay (`<relay>/p2p-circuit/webrtc/p2p/<peer>`), or over a TCP or
 * WebSocket address the other announced when we can reach it (`direct`:
 * Node peers, each other's; a tab, a Node agent's WebSocket). A direct link
 * costs a fraction of a WebRTC link's CPU (no ICE, DTLS or SCTP timers):
 * - one dialer per pair: the lower PeerId (string order); the higher one
 *   dials too only if the pair is still unlinked DIAL_FALLBACK_AFTER_MS after
 *   it first saw the lower one (a returning peer: RETURNING_DIAL_AFTER_MS
 *   when nothing from the lower one is under way, as it may hold a stale
 *   link to us);
 * - but between a peer that announces no direct address (a tab) and one
 *   whose direct address it can reach (an agent's WebSocket), the tab dials,
 *   as soon as identify tells it the address; an agent whose turn it is
 *   introduces itself (a relayed link, which runs identify) and waits
 *   TAB_DIAL_WAIT_MS for that before it dials WebRTC (how a dial goes:
 *   dial-route.ts);
 * - failed dials are retried with exponential backoff;
 * - tick() re-checks everything (call it periodically and on events:
 *   peer:discovery does not fire again for known peers);
 * - in a quiet room (setQuiet) it keeps only the quiet shape's links
 *   (topology.ts), closing the others it dialled (surplus-links.ts), and
 *   dials the rest again when the room wakes;
 * - peers that cannot link directly (this one or others: fallback.ts) are
 *   linked through the relay instead (fallback-links.ts), and left out of
 *   the direct links' shape.
 */
import type { Connection, Libp2p } from '@libp2p/interface'
import type { Multiaddr } from '@multiformats/multiaddr'
import { DIAL_FALLBACK_AFTER_MS, RETURNING_DIAL_AFTER_MS } from './constants'
import type { NetLogger } from './log'
import type { RelayInfo } from './relay-client'
import { linkTargets, quietLinkShape } from './topology'
import { FallbackLinks } from './fallback-links'
import type { DirectAttempts, DirectCause, FallbackState } from './fallback'
import { DialRoute, newCandidate, type DialCandidate } from './dial-route'
import { closeSpentRelayedLinks, SurplusLinks } from './surplus-links'

export interface DialerInit {
  libp2p: Libp2p
  logger: NetLogger
  signal: AbortSignal
  /** peers we must not dial (banned) */
  isBanned: (peerId: string) => boolean
  onChange: () => void
  /**
   * Which of a peer's announced direct addresses (TCP or WebSocket, not
   * relayed, not WebRTC) we can dial: tried before WebRTC. Node peers: all
   * of them; a tab: the WebSocket addresses its page may open. Default:
   * none (WebRTC only).
   */
  direct?: (addr: Multiaddr) => boolean
  /**
   * This peer was online in the room under its PeerId moments ago (a
   * reloaded tab): its peers may hold links to it that are gone at its end,
   * and not dial it. Default: false.
   */
  returning?: boolean
  /** why this peer cannot link directly, once it asked its relays to carry its traffic; default never */
  selfCause?: () => DirectCause | undefined
  /** for tests; defaults from constants.ts */
  fallbackAfterMs?: number
  returningAfterMs?: number
  surplusGraceMs?: number
  identifyWaitMs?: number
  dialTimeoutMs?: number
  tabDialWaitMs?: number
}

export class Dialer {
  private readonly peers = new Map<string, DialCandidate>()
  private readonly self: string
  private readonly fallbackAfterMs: number
  private readonly returningAfterMs: number
  /** the room is quiet: keep the quiet shape's links only (setQuiet) */
  private quiet = false
  /** links through the relay, for peers that cannot link directly */
  private readonly fallback: FallbackLinks
  /** how each dial goes: a direct address or WebRTC */
  private readonly route: DialRoute
  private readonly surplus: SurplusLinks
  /** when we first knew a peer we could dial directly, and whether we ever held a direct link */
  private knownSince: number | undefined
  private everLinked = false

  constructor(private readonly init: DialerInit) {
    this.self = init.libp2p.peerId.toString()
    this.fallbackAfterMs = init.fallbackAfterMs ?? DIAL_FALLBACK_AFTER_MS
    this.returningAfterMs =
      init.returning === true ? (init.returningAfterMs ?? RETURNING_DIAL_AFTER_MS) : Infinity
    this.surplus = new SurplusLinks({
      logger: init.logger,
      directLinks: () => this.directLinks(),
      graceMs: init.surplusGraceMs,
    })
    this.fallback = new FallbackLinks({
      libp2p: init.libp2p,
      logger: init.logger,
      signal: init.signal,
      selfCause: init.selfCause ?? (() => undefined),
      onChange: init.onChange,
    })
    this.route = new DialRoute({
      libp2p: init.libp2p,
      logger: init.logger,
      signal: init.signal,
      onChange: init.onChange,
      direct: init.direct,
      // a tab (which announces no direct address) that learns an agent's dials it now
      onReachable: (id) => {
        if (this.peers.has(id) && !this.route.announcesDirect()) this.tick()
      },
      identifyWaitMs: init.identifyWaitMs,
      dialTimeoutMs: init.dialTimeoutMs,
      tabDialWaitMs: init.tabDialWaitMs,
    })
  }

  /** Peers of the room known through any relay. */
  get known(): number {
    return this.peers.size
  }

  /**
   * Replaces the list of room peers that `relay` reported, and what it said
   * about those that asked to be relayed; true when it named a peer new to us.
   */
  setRoomPeers(
    relay: RelayInfo,
    peers: string[],
    fallback: Map<string, FallbackState> = new Map(),
  ): boolean {
    this.fallback.setRelayStates(relay.peerId, fallback)
    let added = false
    const listed = new Set(peers)
    listed.delete(this.self)
    for (const [id, c] of this.peers) {
      if (!listed.has(id) && c.via.delete(relay.peerId) && c.via.size === 0) {
        this.peers.delete(id)
        this.route.forget(id)
      }
    }
    for (const id of listed) {
      let c = this.peers.get(id)
      if (c === undefined) {
        c = newCandidate(Date.now())
        this.peers.set(id, c)
        added = true
      }
      c.via.set(relay.peerId, relay.addr.toString())
    }
    this.tick()
    return added
  }

  /**
   * The room went quiet (keep the quiet shape's links) or woke (link to
   * every neighbour of the full shape again). On waking, the pairs to link
   * start their dial turn afresh, so the lower peer dials and the higher one
   * waits its fallback, as when they first met: one dial per pair, not two.
   */
  setQuiet(quiet: boolean): void {
    if (quiet === this.quiet) return
    this.quiet = quiet
    this.init.logger.info(
      quiet ? 'room quiet: keeping ring links only' : 'room awake: linking to every neighbour',
    )
    if (!quiet) {
      const linked = new Set(this.directLinks().map((c) => c.remotePeer.toString()))
      const now = Date.now()
      for (const [id, c] of this.peers) if (!linked.has(id) && !c.dialing) c.firstSeen = now
    }
    this.tick()
  }

  /** Whether a limited connection carries the room's traffic (a link through the relay). */
  isFallbackLink(conn: Connection): boolean {
    return this.peers.has(conn.remotePeer.toString()) && this.fallback.isFallbackLink(conn)
  }

  /** The room's peers that asked to be relayed, and the relays' answers (this peer included). */
  fallbackStates(): Map<string, FallbackState> {
    return this.fallback.states()
  }

  /** This peer's own answer, or its cause while no relay answered; undefined: it links directly. */
  selfFallback(): ReturnType<FallbackLinks['selfState']> {
    return this.fallback.selfState()
  }

  /** What our direct dials came to, for the conclusion that every attempt failed (fallback.ts). */
  directAttempts(): DirectAttempts {
    const failures: number[] = []
    for (const [id, c] of this.peers) if (!this.fallback.asked(id)) failures.push(c.failures)
    return { knownSince: this.knownSince, everLinked: this.everLinked, failures }
  }

  tick(): void {
    if (this.init.signal.aborted) return
    closeSpentRelayedLinks(this.init.libp2p, this.init.logger)
    const now = Date.now()
    this.fallback.tick(new Map([...this.peers].map(([id, c]) => [id, c.via])))
    // the direct links' shape leaves out peers that link through the relay;
    // a peer that does makes no direct dial at all
    const direct = [...this.peers.keys()].filter((id) => !this.fallback.asked(id))
    if (direct.length === 0) this.knownSince = undefined
    else this.knownSince ??= now
    if (this.directLinks().length > 0) this.everLinked = true
    if (this.fallback.selfAsked) return
    const full = linkTargets(this.self, direct)
    const wanted = this.quiet
      ? linkTargets(this.self, direct, quietLinkShape(direct.length + 1))
      : full
    this.surplus.close({ wanted, full, roomPeers: this.peers.size, quiet: this.quiet }, now)
    // peers with a link of any kind to us (a relayed one: their dial is under way), if asked
    let linked: Set<string> | undefined
    for (const [id, c] of this.peers) {
      if (c.dialing || !wanted.has(id)) continue
      if (this.hasDirectLink(id)) {
        c.failures = 0
        continue
      }
      if (this.init.isBanned(id)) continue
      const waited = now - c.firstSeen
      // before the fallback, only a returning peer dials a lower one, and only
      // while nothing from it is under way (a link of any kind); and a tab
      // dials at once a peer whose direct address it can reach (an agent)
      const tabToAgent =
        this.route.reachable(id) && !c.directFailed && !this.route.announcesDirect()
      const early = this.self > id && waited < this.fallbackAfterMs && !tabToAgent
      if (early && (waited < this.returningAfterMs || (linked ??= this.linkedPeers()).has(id)))
        continue
      if (now < c.nextDialAt) continue
      if (early && c.failures === 0) {
        this.init.logger.info('returning: dialling a lower peer that has not dialled us', {
          peer: id,
        })
      }
      void this.route.dial(id, c)
    }
  }

  private linkedPeers(): Set<string> {
    return new Set(this.init.libp2p.getConnections().map((c) => c.remotePeer.toString()))
  }

  private hasDirectLink(peerId: string): boolean {
    return this.directLinks().some((c) => c.remotePeer.toString() === peerId)
  }

  /**
   * Open connections to room peers that are not relayed (a relayed one
   * carries limits). A relay's own connection is direct too, but it is no
   * link of ours: never counted, never closed as surplus.
   */
  private directLinks() {
    return this.init.libp2p
      .getConnections()
      .filter(
        (c) => c.status === 'open' && c.limits == null && this.peers.has(c.remotePeer.toString()),
      )
  }
}
