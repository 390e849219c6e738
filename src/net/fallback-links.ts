/**
 * The links through the relay of peers that cannot link directly
 * (fallback.ts says who links to whom): what each relay answered about whom,
 * the dials of those links (`<relay>/p2p-circuit/p2p/<peer>`, no WebRTC,
 * retried with backoff), and which limited connections are such links, so
 * that GossipSub and sync run on them (and on no other limited connection).
 */
import type { Connection, Libp2p } from '@libp2p/interface'
import { multiaddr } from '@multiformats/multiaddr'
import { DIAL_BACKOFF_INITIAL_MS, DIAL_BACKOFF_MAX_MS, DIAL_TIMEOUT_MS } from './constants'
import { backoff } from './backoff'
import {
  dialsFallback,
  fallbackTargets,
  relayed,
  type DirectCause,
  type FallbackState,
} from './fallback'
import { errMsg, type NetLogger } from './log'

export interface FallbackLinksInit {
  libp2p: Libp2p
  logger: NetLogger
  signal: AbortSignal
  /** why this peer cannot link directly, once it asked its relays (relay-client.ts) */
  selfCause: () => DirectCause | undefined
  onChange: () => void
}

interface Dialling {
  failures: number
  nextDialAt: number
  dialing: boolean
}

export class FallbackLinks {
  /** relay → what it answered about the peers that asked (this peer included) */
  private readonly byRelay = new Map<string, Map<string, FallbackState>>()
  private readonly dials = new Map<string, Dialling>()
  private readonly self: string

  constructor(private readonly init: FallbackLinksInit) {
    this.self = init.libp2p.peerId.toString()
  }

  /** Replaces what `relay` said about the peers that asked it to be relayed. */
  setRelayStates(relay: string, states: Map<string, FallbackState>): void {
    this.byRelay.set(relay, states)
  }

  /**
   * What the relays said about `peer`: granted by a relay we are connected
   * to, if any is; else the answer of any relay that has one.
   */
  state(peer: string): FallbackState | undefined {
    let any: FallbackState | undefined
    for (const [relay, states] of this.byRelay) {
      const s = states.get(peer)
      if (s === undefined) continue
      if (relayed(s) && this.connectedTo(relay)) return s
      any ??= s
    }
    return any
  }

  /** Every peer a relay named as asking, with the answer (this peer included). */
  states(): Map<string, FallbackState> {
    const out = new Map<string, FallbackState>()
    for (const states of this.byRelay.values()) {
      for (const peer of states.keys()) {
        const s = this.state(peer)
        if (s !== undefined) out.set(peer, s)
      }
    }
    return out
  }

  /**
   * This peer asked to be relayed: it makes no direct dial. Until a relay
   * answers, it still counts as asking (its cause).
   */
  get selfAsked(): boolean {
    return this.init.selfCause() !== undefined
  }

  /** This peer's own state: the relays' answer, or just its cause while none came. */
  selfState(): FallbackState | { cause: DirectCause; relaying?: undefined } | undefined {
    const cause = this.init.selfCause()
    if (cause === undefined) return undefined
    return this.state(this.self) ?? { cause }
  }

  /** A peer to reach through the relay only, or not at all: never dialled over WebRTC. */
  asked(peer: string): boolean {
    return this.state(peer) !== undefined
  }

  /**
   * A limited connection that carries the room's traffic: to a room peer,
   * with this end or that end relayed.
   */
  isFallbackLink(conn: Connection): boolean {
    if (conn.limits == null) return false
    const peer = conn.remotePeer.toString()
    return relayed(this.state(this.self)) || relayed(this.state(peer))
  }

  /**
   * Dials the relayed links this peer is due to dial among `members` (the
   * room's peers; `via`: relay → relay address, for each).
   */
  tick(members: Map<string, Map<string, string>>): void {
    if (this.init.signal.aborted) return
    const all = this.states()
    const targets = fallbackTargets(this.self, members.keys(), all)
    const now = Date.now()
    for (const peer of targets) {
      if (!dialsFallback(this.self, peer, all) || this.linked(peer)) continue
      let d = this.dials.get(peer)
      if (d === undefined)
        this.dials.set(peer, (d = { failures: 0, nextDialAt: 0, dialing: false }))
      if (d.dialing || now < d.nextDialAt) continue
      const relay = this.grantingRelay(peer, members.get(peer))
      if (relay !== undefined) void this.dial(peer, relay, d)
    }
    for (const peer of this.dials.keys()) if (!targets.has(peer)) this.dials.delete(peer)
  }

  private linked(peer: string): boolean {
    return this.init.libp2p
      .getConnections()
      .some((c) => c.status === 'open' && c.remotePeer.toString() === peer)
  }

  private connectedTo(relay: string): boolean {
    return this.init.libp2p
      .getConnections()
      .some((c) => c.status === 'open' && c.limits == null && c.remotePeer.toString() === relay)
  }

  /** The address of a relay we are connected to that relays `peer`. */
  private grantingRelay(peer: string, via: Map<string, string> | undefined): string | undefined {
    for (const [relay, addr] of via ?? []) {
      if (relayed(this.byRelay.get(relay)?.get(peer)) && this.connectedTo(relay)) return addr
    }
    return undefined
  }

  private async dial(peer: string, relayAddr: string, d: Dialling): Promise<void> {
    d.dialing = true
    const signal = AbortSignal.any([this.init.signal, AbortSignal.timeout(DIAL_TIMEOUT_MS)])
    try {
      await this.init.libp2p.dial(multiaddr(`${relayAddr}/p2p-circuit/p2p/${peer}`), { signal })
      d.failures = 0
      this.init.logger.info('link through the relay up', { peer })
    } catch (err) {
      d.failures++
      d.nextDialAt = Date.now() + backoff(d.failures, DIAL_BACKOFF_INITIAL_MS, DIAL_BACKOFF_MAX_MS)
      if (!this.init.signal.aborted) {
        this.init.logger.warn('link through the relay failed; will retry', {
          peer,
          attempt: d.failures,
          error: errMsg(err),
        })
      }
    } finally {
      d.dialing = false
      this.init.onChange()
    }
  }
}
