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
 *   TAB_DIAL_WAIT_MS for that before it dials WebRTC;
 * - failed dials are retried with exponential backoff;
 * - tick() re-checks everything (call it periodically and on events:
 *   peer:discovery does not fire again for known peers);
 * - in a quiet room (setQuiet) it keeps only the quiet shape's links
 *   (topology.ts), closing the others it dialled, and dials the rest again
 *   when the room wakes;
 * - peers that cannot link directly (this one or others: fallback.ts) are
 *   linked through the relay instead (fallback-links.ts), and left out of
 *   the direct links' shape.
 */
import type { Connection, IdentifyResult, Libp2p } from '@libp2p/interface'
import { peerIdFromString } from '@libp2p/peer-id'
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr'
import {
  DIAL_BACKOFF_INITIAL_MS,
  DIAL_BACKOFF_MAX_MS,
  DIAL_FALLBACK_AFTER_MS,
  DIAL_TIMEOUT_MS,
  DIRECT_LINKS,
  IDENTIFY_WAIT_MS,
  RELAYED_LINK_GRACE_MS,
  RETURNING_DIAL_AFTER_MS,
  SURPLUS_LINK_GRACE_MS,
  TAB_DIAL_WAIT_MS,
} from './constants'
import { backoff } from './backoff'
import { directAddrs, isDirect, isUpgradeError, isWebSocket } from './direct-addrs'
import { errMsg, type NetLogger } from './log'
import { closeLink } from './hang-up'
import type { RelayInfo } from './relay-client'
import { linkTargets, quietLinkShape } from './topology'
import { FallbackLinks } from './fallback-links'
import type { DirectAttempts, DirectCause, FallbackState } from './fallback'

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

interface Candidate {
  /** relay peerId → relay multiaddr, for every relay that lists the peer */
  via: Map<string, string>
  firstSeen: number
  failures: number
  nextDialAt: number
  dialing: boolean
  /** a dial to the peer's announced direct addresses failed: use WebRTC from now on */
  directFailed: boolean
  /** the `firstSeen` of the dial turn in which we last left the dial to the peer (a tab) */
  waitedForTab?: number
}

export class Dialer {
  private readonly peers = new Map<string, Candidate>()
  private readonly self: string
  private readonly fallbackAfterMs: number
  private readonly returningAfterMs: number
  private readonly surplusGraceMs: number
  private readonly identifyWaitMs: number
  private readonly dialTimeoutMs: number
  private readonly tabDialWaitMs: number
  /** peers whose identify announced a direct address we can reach */
  private readonly reachable = new Set<string>()
  /** direct links to peers off our ring: since when each has been unwanted */
  private readonly unwantedSince = new Map<string, number>()
  /** the room is quiet: keep the quiet shape's links only (setQuiet) */
  private quiet = false
  /** links through the relay, for peers that cannot link directly */
  private readonly fallback: FallbackLinks
  /** when we first knew a peer we could dial directly, and whether we ever held a direct link */
  private knownSince: number | undefined
  private everLinked = false

  constructor(private readonly init: DialerInit) {
    this.self = init.libp2p.peerId.toString()
    this.fallbackAfterMs = init.fallbackAfterMs ?? DIAL_FALLBACK_AFTER_MS
    this.returningAfterMs =
      init.returning === true ? (init.returningAfterMs ?? RETURNING_DIAL_AFTER_MS) : Infinity
    this.surplusGraceMs = init.surplusGraceMs ?? SURPLUS_LINK_GRACE_MS
    this.identifyWaitMs = init.identifyWaitMs ?? IDENTIFY_WAIT_MS
    this.dialTimeoutMs = init.dialTimeoutMs ?? DIAL_TIMEOUT_MS
    this.tabDialWaitMs = init.tabDialWaitMs ?? TAB_DIAL_WAIT_MS
    this.fallback = new FallbackLinks({
      libp2p: init.libp2p,
      logger: init.logger,
      signal: init.signal,
      selfCause: init.selfCause ?? (() => undefined),
      onChange: init.onChange,
    })
    const onIdentify = (event: CustomEvent<IdentifyResult>): void => this.identified(event.detail)
    init.libp2p.addEventListener('peer:identify', onIdentify)
    init.signal.addEventListener('abort', () =>
      init.libp2p.removeEventListener('peer:identify', onIdentify),
    )
  }

  /**
   * Keeps the direct addresses of a peer we can reach; a tab (which
   * announces none) that learns an agent's dials it now, whatever the order.
   */
  private identified(result: IdentifyResult): void {
    const id = result.peerId.toString()
    const accept = this.init.direct
    const announced = result.listenAddrs ?? []
    if (accept === undefined || !announced.some((a) => isDirect(a) && accept(a))) {
      this.reachable.delete(id)
      return
    }
    this.reachable.add(id)
    if (this.peers.has(id) && !this.announcesDirect()) this.tick()
  }

  /** We listen on a direct address (a Node peer): others may dial it. */
  private announcesDirect(): boolean {
    return this.init.libp2p.getMultiaddrs().some(isDirect)
  }

  /** A tab may dial one of our addresses: we listen on a WebSocket. */
  private tabsMayDialUs(): boolean {
    return this.init.libp2p.getMultiaddrs().some((a) => isDirect(a) && isWebSocket(a))
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
        this.reachable.delete(id)
      }
    }
    for (const id of listed) {
      let c = this.peers.get(id)
      if (c === undefined) {
        c = {
          via: new Map(),
          firstSeen: Date.now(),
          failures: 0,
          nextDialAt: 0,
          dialing: false,
          directFailed: false,
        }
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
    this.closeSpentRelayedLinks()
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
    this.closeSurplusLinks(wanted, full, now)
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
      const tabToAgent = this.reachable.has(id) && !c.directFailed && !this.announcesDirect()
      const early = this.self > id && waited < this.fallbackAfterMs && !tabToAgent
      if (early && (waited < this.returningAfterMs || (linked ??= this.linkedPeers()).has(id)))
        continue
      if (now < c.nextDialAt) continue
      if (early && c.failures === 0) {
        this.init.logger.info('returning: dialling a lower peer that has not dialled us', {
          peer: id,
        })
      }
      void this.dial(id, c)
    }
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
  private closeSurplusLinks(wanted: Set<string>, full: Set<string>, now: number): void {
    if (!this.quiet && this.peers.size <= DIRECT_LINKS) {
      this.unwantedSince.clear()
      return
    }
    const direct = this.directLinks()
    const surplus = direct.filter((c) => {
      const id = c.remotePeer.toString()
      if (this.peers.size > DIRECT_LINKS && !full.has(id)) return true
      return this.quiet && !wanted.has(id) && c.direction === 'outbound'
    })
    const linked = new Set(direct.map((c) => c.remotePeer.toString()))
    let wantedLinked = 0
    for (const id of wanted) if (linked.has(id)) wantedLinked++
    const closable = new Set(surplus.map((c) => c.remotePeer.toString()))
    for (const id of this.unwantedSince.keys()) {
      if (!closable.has(id)) this.unwantedSince.delete(id)
    }
    const slack = this.quiet ? 0 : 2
    for (const c of surplus) {
      const id = c.remotePeer.toString()
      const since = this.unwantedSince.get(id)
      if (since === undefined) this.unwantedSince.set(id, now)
      else if (now - since >= this.surplusGraceMs && wantedLinked >= wanted.size - slack) {
        this.unwantedSince.delete(id)
        this.init.logger.info('surplus direct link closed', { peer: id, quiet: this.quiet })
        closeLink(c, this.init.logger)
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
  private closeSpentRelayedLinks(): void {
    const conns = this.init.libp2p.getConnections().filter((c) => c.status === 'open')
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
        closeLink(c, this.init.logger)
      }
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

  /**
   * The relay to signal a dial to `c` through: of the relays that listed the
   * peer, those we are connected to (one that went down still lists it until
   * it comes back, and a dial through it could only fail), in turn by failure
   * count; any of them when none is up.
   */
  private relayFor(c: Candidate): string | undefined {
    const up = new Set(
      this.init.libp2p
        .getConnections()
        .filter((conn) => conn.status === 'open' && conn.limits == null)
        .map((conn) => conn.remotePeer.toString()),
    )
    const live = [...c.via].filter(([relay]) => up.has(relay)).map(([, addr]) => addr)
    const choices = live.length > 0 ? live : [...c.via.values()]
    return choices[c.failures % choices.length]
  }

  private async dial(peerId: string, c: Candidate): Promise<void> {
    const relayAddr = this.relayFor(c)
    if (relayAddr === undefined) return
    c.dialing = true
    const started = Date.now()
    // each step gets its own time: on a loaded machine the introduction and
    // identify may use up most of one, and the dial after it must not inherit the rest
    const step = () => AbortSignal.any([this.init.signal, AbortSignal.timeout(this.dialTimeoutMs)])
    try {
      let conn: Connection | null = null
      if (this.init.direct !== undefined && !c.directFailed) {
        const { addrs: direct, identified } = await this.announcedDirect(peerId, relayAddr, step())
        if (direct.length === 0 && identified && this.waitForTab(peerId, c)) return
        if (direct.length > 0) {
          const signal = step()
          conn = await this.init.libp2p.dial(direct, { signal }).catch((err: unknown) => {
            // the peer answered but was too slow to finish the handshake (a
            // busy machine): it is reachable, so retry the same way later
            if (signal.aborted && isUpgradeError(err)) throw err
            c.directFailed = true
            this.init.logger.info('direct address unreachable; using WebRTC', {
              peer: peerId,
              error: errMsg(err),
            })
            return null
          })
        }
      }
      conn ??= await this.init.libp2p.dial(
        multiaddr(`${relayAddr}/p2p-circuit/webrtc/p2p/${peerId}`),
        { signal: step() },
      )
      c.failures = 0
      this.init.logger.info('direct link up', {
        peer: peerId,
        ms: Date.now() - started,
        addr: conn.remoteAddr.toString(),
      })
    } catch (err) {
      c.failures++
      c.nextDialAt = Date.now() + backoff(c.failures, DIAL_BACKOFF_INITIAL_MS, DIAL_BACKOFF_MAX_MS)
      if (!this.init.signal.aborted) {
        this.init.logger.warn('dial failed; will retry', {
          peer: peerId,
          attempt: c.failures,
          error: errMsg(err),
        })
      }
    } finally {
      c.dialing = false
      this.init.onChange()
    }
  }

  /**
   * Whether to leave this dial turn to the peer: identify told us it
   * announces no direct address (a tab; a peer not identified in time may be
   * a Node peer on a busy machine, and gets no wait), we listen on a
   * WebSocket it may reach, and we have not waited for it in this turn yet.
   * It learnt our address from the identify our introduction ran; it dials
   * now if its page can, and we dial WebRTC after TAB_DIAL_WAIT_MS if it
   * did not.
   */
  private waitForTab(peerId: string, c: Candidate): boolean {
    if (this.reachable.has(peerId) || c.waitedForTab === c.firstSeen || !this.tabsMayDialUs())
      return false
    c.waitedForTab = c.firstSeen
    c.nextDialAt = Date.now() + this.tabDialWaitMs
    this.init.logger.info('waiting for a tab to dial our WebSocket', { peer: peerId })
    return true
  }

  /**
   * The TCP and WebSocket addresses the peer announced (identify), ready to
   * dial, and whether identify told us them: empty when it announced none
   * (a tab) or we could not learn them in time (not identified). A peer we
   * have never identified is introduced first: a relayed link (the one
   * WebRTC signalling would open anyway), on which identify runs at once.
   */
  private async announcedDirect(
    peerId: string,
    relayAddr: string,
    signal: AbortSignal,
  ): Promise<{ addrs: Multiaddr[]; identified: boolean }> {
    const id = peerIdFromString(peerId)
    const accept = this.init.direct
    const known = await this.init.libp2p.peerStore.get(id).catch(() => null)
    if (known !== null && known.protocols.length > 0)
      return { addrs: directAddrs(peerId, known.addresses, accept), identified: true }
    const identified = new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        this.init.libp2p.removeEventListener('peer:identify', onIdentify)
        resolve()
      }
      const onIdentify = (event: CustomEvent<{ peerId: { toString(): string } }>): void => {
        if (event.detail.peerId.toString() === peerId) done()
      }
      const timer = setTimeout(done, this.identifyWaitMs)
      this.init.libp2p.addEventListener('peer:identify', onIdentify)
    })
    const relayed = this.init.libp2p
      .getConnections(id)
      .some((conn) => conn.status === 'open' && conn.limits != null)
    if (!relayed) {
      await this.init.libp2p.dial(multiaddr(`${relayAddr}/p2p-circuit/p2p/${peerId}`), { signal })
    }
    await identified
    const after = await this.init.libp2p.peerStore.get(id).catch(() => null)
    if (after === null || after.protocols.length === 0) return { addrs: [], identified: false }
    return { addrs: directAddrs(peerId, after.addresses, accept), identified: true }
  }
}
