/**
 * How one dial to a room peer goes, once the dialer (dialer.ts) chose to
 * dial it: over a TCP or WebSocket address the peer announced, when we can
 * reach it (`direct`), else over WebRTC signalled through a relay
 * (`<relay>/p2p-circuit/webrtc/p2p/<peer>`). A peer we never identified is
 * introduced first over a relayed link, which runs identify. An agent whose
 * turn it is leaves the dial to a tab that may reach its WebSocket for
 * TAB_DIAL_WAIT_MS. A failed dial puts off the next one to the peer
 * (exponential backoff).
 */
import type { Connection, IdentifyResult, Libp2p } from '@libp2p/interface'
import { peerIdFromString } from '@libp2p/peer-id'
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr'
import {
  DIAL_BACKOFF_INITIAL_MS,
  DIAL_BACKOFF_MAX_MS,
  DIAL_TIMEOUT_MS,
  IDENTIFY_WAIT_MS,
  TAB_DIAL_WAIT_MS,
} from './constants'
import { backoff } from './backoff'
import { directAddrs, isDirect, isUpgradeError, isWebSocket } from './direct-addrs'
import { errMsg, type NetLogger } from './log'

/** A room peer as the dialer keeps it: where it is listed, and how our dials to it went. */
export interface DialCandidate {
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

/** A peer first listed now, never dialled. */
export function newCandidate(firstSeen: number): DialCandidate {
  return {
    via: new Map(),
    firstSeen,
    failures: 0,
    nextDialAt: 0,
    dialing: false,
    directFailed: false,
  }
}

export interface DialRouteInit {
  libp2p: Libp2p
  logger: NetLogger
  signal: AbortSignal
  /** a dial ended, either way */
  onChange: () => void
  /**
   * Which of a peer's announced direct addresses (TCP or WebSocket, not
   * relayed, not WebRTC) we can dial: tried before WebRTC. Default: none
   * (WebRTC only).
   */
  direct?: (addr: Multiaddr) => boolean
  /** identify told us `peerId` announces a direct address we can reach */
  onReachable: (peerId: string) => void
  /** for tests; defaults from constants.ts */
  identifyWaitMs?: number
  dialTimeoutMs?: number
  tabDialWaitMs?: number
}

export class DialRoute {
  /** peers whose identify announced a direct address we can reach */
  private readonly reachablePeers = new Set<string>()
  private readonly identifyWaitMs: number
  private readonly dialTimeoutMs: number
  private readonly tabDialWaitMs: number

  constructor(private readonly init: DialRouteInit) {
    this.identifyWaitMs = init.identifyWaitMs ?? IDENTIFY_WAIT_MS
    this.dialTimeoutMs = init.dialTimeoutMs ?? DIAL_TIMEOUT_MS
    this.tabDialWaitMs = init.tabDialWaitMs ?? TAB_DIAL_WAIT_MS
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
      this.reachablePeers.delete(id)
      return
    }
    this.reachablePeers.add(id)
    this.init.onReachable(id)
  }

  /** Identify told us the peer announces a direct address we can reach. */
  reachable(peerId: string): boolean {
    return this.reachablePeers.has(peerId)
  }

  /** The peer left the room. */
  forget(peerId: string): void {
    this.reachablePeers.delete(peerId)
  }

  /** We listen on a direct address (a Node peer): others may dial it. */
  announcesDirect(): boolean {
    return this.init.libp2p.getMultiaddrs().some(isDirect)
  }

  /** A tab may dial one of our addresses: we listen on a WebSocket. */
  private tabsMayDialUs(): boolean {
    return this.init.libp2p.getMultiaddrs().some((a) => isDirect(a) && isWebSocket(a))
  }

  /**
   * The relay to signal a dial to `c` through: of the relays that listed the
   * peer, those we are connected to (one that went down still lists it until
   * it comes back, and a dial through it could only fail), in turn by failure
   * count; any of them when none is up.
   */
  private relayFor(c: DialCandidate): string | undefined {
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

  async dial(peerId: string, c: DialCandidate): Promise<void> {
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
  private waitForTab(peerId: string, c: DialCandidate): boolean {
    if (this.reachable(peerId) || c.waitedForTab === c.firstSeen || !this.tabsMayDialUs())
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
