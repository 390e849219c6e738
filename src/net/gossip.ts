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
import { sha256 } from '@noble/hashes/sha2.js'
import { GOSSIP_HEARTBEAT_MS, GOSSIP_SEEN_TTL_MS } from './constants'
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

/** The gossipsub service factory with this swarm's settings. */
export function swarmGossipsub(
  maxRecordBytes: number,
): (components: GossipSubComponents) => GossipSub {
  const opts: Partial<GossipsubOpts> = {
    // One signature per record: GossipSub sends no envelope signature, no
    // `from`, no seqno (and drops messages that carry them). The record inside
    // is sealed with the room key and signed by its author (PROTOCOL.md §2),
    // which the validator checks: a second, envelope signature would cost a
    // sign and a verify per message for no more assurance.
    globalSignaturePolicy: StrictNoSign,
    // the id is the content: the same record published twice (or by two
    // peers, or replayed) is one message, which matches the store's content
    // ids; replays within seenTTL are dropped unseen, later ones are known ids
    msgIdFn: (msg: Message) => sha256(msg.data),
    // a peer alone in the room still publishes (the message is lost, as it
    // would be anyway; sync delivers it to whoever joins later)
    allowPublishToZeroTopicPeers: true,
    // republishing a record we already sent is a no-op, not an error
    ignoreDuplicatePublishError: true,
    emitSelf: false,
    heartbeatInterval: GOSSIP_HEARTBEAT_MS,
    seenTTL: GOSSIP_SEEN_TTL_MS,
    maxInboundDataLength: maxRpcBytes(maxRecordBytes),
    // gossip only over direct links: relayed links are limited (and cut by
    // the relay after a while), they exist only to signal WebRTC
    runOnLimitedConnection: false,
    scoreParams: {
      // All tabs behind one relay (or on one laptop) share an IP: the default
      // colocation penalty graylists a swarm of 12+ tabs. Sybil resistance by
      // IP makes no sense on a LAN; the validator and strikes do the policing.
      IPColocationFactorWeight: 0,
    },
  }
  return gossipsub(opts)
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
