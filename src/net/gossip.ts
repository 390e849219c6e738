/**
 * GossipSub configured for this swarm, and the adapter that turns it into
 * publish/subscribe of opaque bytes judged by the protocol layer's validator.
 */
import {
  gossipsub,
  StrictNoSign,
  TopicValidatorResult,
  type GossipSub,
  type GossipsubMessage,
  type GossipsubOpts,
  type Message,
} from '@libp2p/gossipsub'
import type { GossipSubComponents } from '@libp2p/gossipsub'
import type { PeerId } from '@libp2p/interface'
import { sha256 } from '../protocol/sha256'
import { bytesToHex } from '@noble/hashes/utils.js'
import {
  FLOOD_LOG_INTERVAL_MS,
  GOSSIP_HEARTBEAT_MS,
  GOSSIP_MESH,
  IDONTWANT_MIN_BYTES,
  GOSSIP_SEEN_TTL_MS,
  GOSSIP_SCORE_DECAY_MS,
  INVALID_MESSAGE_DECAY,
  INVALID_MESSAGE_WEIGHT,
  STRIKE_SCORE_WEIGHT,
} from './constants'
import { messageCost, RateLimiter } from './rate-limit'
import { linksOnlyComponents, type CarriesTraffic } from './limited-links'
import { RecordRejectedError, RecordTooLargeError } from './errors'
import { errMsg, type NetLogger } from './log'
import type { GossipValidator, PublishResult, Verdict } from './types'

/**
 * An RPC frame may carry a message plus control data (IHAVE/IWANT ids,
 * subscriptions). Twice the record cap plus 64 KiB covers that with margin;
 * anything larger is a peer trying to make us buffer megabytes.
 */
export function maxRpcBytes(maxRecordBytes: number): number {
  return 2 * maxRecordBytes + 64 * 1024
}

/** A decay factor per second as the factor per GOSSIP_SCORE_DECAY_MS. */
function perInterval(perSecond: number): number {
  return perSecond ** (GOSSIP_SCORE_DECAY_MS / 1_000)
}

/**
 * GossipSub's peer score for one of our topics (P1–P4). Only P4, invalid
 * messages, can make a score negative: P3 (too few deliveries from a mesh
 * peer) is off, as a quiet room (no goal running) would otherwise graylist
 * every honest neighbour.
 */
function topicScore() {
  return {
    topicWeight: 1,
    // P1, P2: small rewards for staying in the mesh and delivering first (capped)
    timeInMeshWeight: 0.01,
    timeInMeshQuantum: 1_000,
    timeInMeshCap: 3_600,
    firstMessageDeliveriesWeight: 0.1,
    firstMessageDeliveriesDecay: perInterval(0.9),
    firstMessageDeliveriesCap: 50,
    // P3, P3b: off (see above)
    meshMessageDeliveriesWeight: 0,
    meshMessageDeliveriesDecay: perInterval(0.5),
    meshMessageDeliveriesCap: 100,
    meshMessageDeliveriesThreshold: 1,
    meshMessageDeliveriesWindow: 10,
    meshMessageDeliveriesActivation: 5_000,
    meshFailurePenaltyWeight: 0,
    meshFailurePenaltyDecay: perInterval(0.5),
    // P4: every rejected message
    invalidMessageDeliveriesWeight: INVALID_MESSAGE_WEIGHT,
    invalidMessageDeliveriesDecay: perInterval(INVALID_MESSAGE_DECAY),
  }
}

export interface SwarmGossipsubInit {
  maxRecordBytes: number
  /** the room's topics, which the peer score watches */
  topics: readonly string[]
  /** strikes a peer holds now (strikes.ts): GossipSub's application score */
  strikes: (peerId: string) => number
  /**
   * which limited connections carry gossip: links through the relay of peers
   * that cannot link directly (fallback.ts, limited-links.ts). Default: none.
   */
  carries?: CarriesTraffic
}

/**
 * sha256 of a message's data, computed once: GossipSub asks for the fast id
 * and then the id of every new message, of the same bytes.
 */
const digests = new WeakMap<Uint8Array, Uint8Array>()
function digestOf(data: Uint8Array): Uint8Array {
  let digest = digests.get(data)
  if (digest === undefined) {
    digest = sha256(data)
    digests.set(data, digest)
  }
  return digest
}

/** The gossipsub service factory with this swarm's settings. */
export function swarmGossipsub(
  init: SwarmGossipsubInit,
): (components: GossipSubComponents) => GossipSub {
  const factory = gossipsub(swarmGossipsubOptions(init))
  const carries = init.carries
  return carries === undefined
    ? factory
    : (components) => factory(linksOnlyComponents(components, carries))
}

/** This swarm's GossipSub settings. */
export function swarmGossipsubOptions(init: SwarmGossipsubInit): Partial<GossipsubOpts> {
  return {
    // One signature per record: GossipSub sends no envelope signature, no
    // `from`, no seqno (and drops messages that carry them). The record inside
    // is sealed with the room key and signed by its author (PROTOCOL.md §2),
    // which the validator checks: a second, envelope signature would cost a
    // sign and a verify per message for no more assurance.
    globalSignaturePolicy: StrictNoSign,
    // the id is the content: the same record published twice (or by two
    // peers, or replayed) is one message, which matches the store's content
    // ids; replays within seenTTL are dropped unseen, later ones are known ids
    msgIdFn: (msg: Message) => digestOf(msg.data),
    // the same id, known before the signature check: a copy of a message we
    // already took (every neighbour in the mesh forwards it) costs a hash, not
    // an Ed25519 check
    fastMsgIdFn: (msg) => bytesToHex(digestOf(msg.data ?? new Uint8Array(0))),
    // a peer alone in the room still publishes (the message is lost, as it
    // would be anyway; sync delivers it to whoever joins later)
    allowPublishToZeroTopicPeers: true,
    // republishing a record we already sent is a no-op, not an error
    ignoreDuplicatePublishError: true,
    emitSelf: false,
    // IDONTWANT (GossipSub 1.2) tells every mesh peer "I have this one" for
    // each message over 512 bytes: a control message per message per mesh
    // peer, as costly to send as a record of ours (most are ~1 KB). Only
    // records big enough that not receiving a copy saves real work get one.
    // At 16 Node peers on two cores this cut the CPU by a third.
    idontwantMinDataSize: IDONTWANT_MIN_BYTES,
    ...GOSSIP_MESH,
    heartbeatInterval: GOSSIP_HEARTBEAT_MS,
    seenTTL: GOSSIP_SEEN_TTL_MS,
    maxInboundDataLength: maxRpcBytes(init.maxRecordBytes),
    // gossip over direct links, and over limited (relayed) connections only
    // where `carries` says: links through the relay of peers that cannot
    // link directly; the others only signal WebRTC (limited-links.ts)
    runOnLimitedConnection: init.carries !== undefined,
    scoreParams: {
      // All tabs behind one relay (or on one laptop) share an IP: the default
      // colocation penalty graylists a swarm of 12+ tabs. Sybil resistance by
      // IP makes no sense on a LAN; the validator and strikes do the policing.
      IPColocationFactorWeight: 0,
      decayInterval: GOSSIP_SCORE_DECAY_MS,
      // our strikes (rejected records, floods, junk in sync) lower the score
      appSpecificScore: (peer: string) => -init.strikes(peer),
      appSpecificWeight: STRIKE_SCORE_WEIGHT,
      topics: Object.fromEntries(init.topics.map((topic) => [topic, topicScore()])),
    },
    // the library's defaults, stated: below −80 a peer's RPCs are ignored unread
    scoreThresholds: {
      gossipThreshold: -10,
      publishThreshold: -50,
      graylistThreshold: -80,
    },
  }
}

export interface InboundGuardInit {
  pubsub: GossipSub
  limiter: RateLimiter
  logger: NetLogger
  /** the author a message names (SwarmNodeInitBase.authorOf); default: none */
  authorOf?: (topic: string, bytes: Uint8Array) => string | undefined
  /** a neighbour sent `count` of its own messages past its bucket: strike it */
  onFlood: (peer: string, count: number) => void
  now?: () => number
}

/**
 * Charge every message a neighbour sends to its bucket before GossipSub
 * checks anything; drop what the bucket refuses, unread. GossipSub marks a
 * dropped message neither seen nor invalid, so an honest copy of it from
 * another neighbour, or from sync, is still taken. Only a neighbour's own
 * messages past its bucket count as strikes: an honest neighbour that merely
 * forwards a flood is not cut off for it (its copies are dropped all the same).
 * Messages carry no GossipSub author (StrictNoSign): `authorOf` reads the one
 * the record names, for refused messages only.
 */
export function guardInbound(init: InboundGuardInit): void {
  const { pubsub, limiter, logger } = init
  const now = init.now ?? Date.now
  const authorOf = (topic: string, bytes: Uint8Array): string | undefined => {
    try {
      return init.authorOf?.(topic, bytes)
    } catch {
      return undefined
    }
  }
  // GossipSub's entry point for a neighbour's RPC (public on the class, absent
  // from the interface the package exports): the one place before its checks
  const target = pubsub as unknown as InboundRpcEntry
  if (typeof target.handleReceivedRpc !== 'function') {
    logger.error('gossip: no handleReceivedRpc in this GossipSub: inbound rate limit off', {})
    return
  }
  const original = target.handleReceivedRpc.bind(pubsub)
  const dropped = new Map<string, { count: number; loggedAt: number }>()
  let lastPrune = now()
  target.handleReceivedRpc = async (from, rpc) => {
    if (rpc.messages.length > 0) {
      const peer = from.toString()
      const t = now()
      let refused = 0
      let ownRefused = 0
      rpc.messages = rpc.messages.filter((msg) => {
        if (limiter.take(peer, messageCost(msg.data?.length ?? 0), t)) return true
        refused++
        if (authorOf(msg.topic ?? '', msg.data ?? new Uint8Array(0)) === peer) ownRefused++
        return false
      })
      if (refused > 0) {
        const entry = dropped.get(peer) ?? { count: 0, loggedAt: -Infinity }
        entry.count += refused
        if (t - entry.loggedAt >= FLOOD_LOG_INTERVAL_MS) {
          logger.warn('gossip: neighbour over its rate limit; messages dropped', {
            peer,
            dropped: entry.count,
          })
          entry.loggedAt = t
          entry.count = 0
        }
        dropped.set(peer, entry)
        if (ownRefused > 0) init.onFlood(peer, ownRefused)
      }
      if (t - lastPrune > FLOOD_LOG_INTERVAL_MS) {
        lastPrune = t
        limiter.prune(t)
        for (const [p, entry] of dropped) {
          if (t - entry.loggedAt > FLOOD_LOG_INTERVAL_MS) dropped.delete(p)
        }
      }
    }
    return original(from, rpc)
  }
}

interface InboundRpcEntry {
  handleReceivedRpc(
    from: PeerId,
    rpc: { messages: { topic?: string; data?: Uint8Array }[] },
  ): Promise<void>
}

export interface GossipAdapterInit {
  pubsub: GossipSub
  validate: GossipValidator
  maxRecordBytes: number
  logger: NetLogger
  /** called for each message rejected, against the neighbour that sent it */
  onReject: (propagationSource: string, reason: string) => void
}

type Handler = (bytes: Uint8Array, from: string) => void

export class GossipAdapter {
  private readonly handlers = new Map<string, Set<Handler>>()

  constructor(private readonly init: GossipAdapterInit) {
    init.pubsub.addEventListener('gossipsub:message', (evt) => this.deliver(evt.detail))
  }

  /**
   * The gap between GossipSub heartbeats from the next one on (a quiet room
   * slows it: QUIET_TICK_MS). @libp2p/gossipsub reads `opts.heartbeatInterval`
   * each time it schedules a heartbeat, so no restart is needed.
   */
  setHeartbeat(ms: number): void {
    // the implementation's options, not part of the GossipSub interface: a
    // version without them keeps its 1 s heartbeat (gossip-heartbeat.node.test.ts notices)
    const opts = (this.init.pubsub as unknown as { opts?: { heartbeatInterval?: unknown } }).opts
    if (opts !== undefined && typeof opts.heartbeatInterval === 'number') {
      opts.heartbeatInterval = ms
    }
  }

  /** Our own verdict, with the size cap first; a throw (or rejection) counts as reject. */
  judge(topic: string, bytes: Uint8Array, from: string): Verdict | Promise<Verdict> {
    if (bytes.length > this.init.maxRecordBytes) return 'reject'
    const threw = (err: unknown): Verdict => {
      this.init.logger.warn('gossip: validator threw (treated as reject)', {
        topic,
        error: errMsg(err),
      })
      return 'reject'
    }
    try {
      const verdict = this.init.validate(topic, bytes, from)
      return typeof verdict === 'string' ? verdict : verdict.catch(threw)
    } catch (err) {
      return threw(err)
    }
  }

  subscribe(topic: string, handler: Handler): () => void {
    let set = this.handlers.get(topic)
    if (set === undefined) {
      set = new Set()
      this.handlers.set(topic, set)
      this.init.pubsub.topicValidators.set(topic, (peer, msg) =>
        this.validateIncoming(peer.toString(), msg),
      )
      this.init.pubsub.subscribe(topic)
    }
    // a handler subscribed twice still gets one call per message
    const own: Handler = (bytes, from) => handler(bytes, from)
    set.add(own)
    return () => {
      const s = this.handlers.get(topic)
      if (s === undefined || !s.delete(own) || s.size > 0) return
      this.handlers.delete(topic)
      this.init.pubsub.unsubscribe(topic)
      this.init.pubsub.topicValidators.delete(topic)
    }
  }

  async publish(topic: string, bytes: Uint8Array, self: string): Promise<PublishResult> {
    if (bytes.length > this.init.maxRecordBytes) {
      throw new RecordTooLargeError(bytes.length, this.init.maxRecordBytes)
    }
    const verdict = await this.judge(topic, bytes, self)
    if (verdict === 'reject') {
      throw new RecordRejectedError(`our own validator rejects this record on ${topic}`)
    }
    if (verdict === 'ignore') return { recipients: 0 }
    const res = await this.init.pubsub.publish(topic, bytes)
    return { recipients: res.recipients.length }
  }

  private validateIncoming(
    propagationSource: string,
    msg: Message,
  ): TopicValidatorResult | Promise<TopicValidatorResult> {
    // the record names and signs its author; GossipSub's messages carry none
    const verdict = this.judge(msg.topic, msg.data, propagationSource)
    return typeof verdict === 'string'
      ? this.result(propagationSource, msg, verdict)
      : verdict.then((v) => this.result(propagationSource, msg, v))
  }

  private result(propagationSource: string, msg: Message, verdict: Verdict): TopicValidatorResult {
    if (verdict === 'accept') return TopicValidatorResult.Accept
    if (verdict === 'ignore') return TopicValidatorResult.Ignore
    this.init.logger.warn('gossip: message rejected; dropped', {
      topic: msg.topic,
      via: propagationSource,
      bytes: msg.data.length,
    })
    this.init.onReject(propagationSource, `rejected message on ${msg.topic}`)
    return TopicValidatorResult.Reject
  }

  private deliver({ msg, propagationSource }: GossipsubMessage): void {
    const set = this.handlers.get(msg.topic)
    if (set === undefined) return
    const from = propagationSource.toString()
    for (const h of set) {
      try {
        h(msg.data, from)
      } catch (err) {
        this.init.logger.error('gossip: message handler threw', {
          topic: msg.topic,
          error: errMsg(err),
        })
      }
    }
  }
}
