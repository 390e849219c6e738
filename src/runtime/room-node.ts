/**
 * The room-scoped network of one epoch: a swarm node registered under the
 * epoch's transport id (relay discovery, topics, sync HELLO), sealing and
 * opening records with the epoch's record key, and validating gossip once.
 * The runtime builds one for the current epoch and builds a new one when the
 * room moves to the next (members.ts), keeping the plan store: records carry
 * the stable room id, so the plan survives epochs.
 *
 * A forwarding node (`forward`) serves a previous epoch to members who come
 * back after a reset: it takes and offers only the records `forward` allows
 * (the rekey and what vouches for it), nothing of the plan.
 */
import type { PrivateKey } from '@libp2p/interface'
import type {
  MemberLookup,
  NetLogger,
  RecordStore,
  SwarmNode,
  SwarmNodeInitBase,
  Verdict,
} from '../net/types'
import { MAX_WIRE_BYTES, type Ed25519Verify } from '../protocol/codec'
import type { PlanRecord, Presence, WireRecord } from '../protocol/records'
import { SEAL_OVERHEAD, sealRecord } from '../protocol/room-key'
import { roomTopics } from '../protocol/topics'
import { authorNamed, openSealed, type OpenKey, type Opened, type OpenResult } from './opener'
import { SealedStore } from './sealed'
import { isPlanRecord, type PlanStore } from './store'
import type { TrafficStats } from './types'

/** Opens gossip elsewhere (a tab's signature worker). */
export interface GossipOpener {
  open(sealed: Uint8Array): Promise<OpenResult>
  close(): void
}

export interface RoomNodeInit {
  /** the epoch's transport id and record key, and the stable id records carry */
  key: OpenKey
  relays: string[] | undefined
  privateKey: PrivateKey
  createNode: (init: SwarmNodeInitBase) => Promise<SwarmNode>
  store: PlanStore
  /** a worker opener for this epoch; default in-process */
  opener?: GossipOpener
  verify?: Ed25519Verify
  netLogger?: NetLogger
  log: (message: string) => void
  /** a forwarding node: only records this allows are taken, kept or offered */
  forward?: (record: PlanRecord) => boolean
  /** a plan record arrived by gossip (validated) */
  onPlan?: (record: PlanRecord, plain: Uint8Array) => void
  onPresence?: (record: Presence) => void
  traffic?: TrafficStats
  /** the member a PeerId acts for: bans and strikes count per member (net/strikes.ts) */
  memberOf?: MemberLookup
}

export interface RoomNode {
  readonly node: SwarmNode
  readonly key: OpenKey
  /** seals and gossips one signed record (`plain`) on its topic */
  publish(record: WireRecord, plain: Uint8Array): Promise<void>
  stop(): Promise<void>
}

/** A RecordStore that offers and takes only what `allow` lets through (forwarding nodes). */
class FilteredStore implements RecordStore {
  private cache: { revision: number; ids: Set<string> } | null = null

  constructor(
    private readonly inner: PlanStore,
    private readonly allow: (record: PlanRecord) => boolean,
  ) {}

  /** the allowed ids, computed again only when the store changed */
  private allowed(): Set<string> {
    const revision = this.inner.revision()
    if (this.cache?.revision !== revision) {
      const ids = new Set<string>()
      for (const record of this.inner.records()) if (this.allow(record)) ids.add(record.id)
      this.cache = { revision, ids }
    }
    return this.cache.ids
  }

  ids(): Iterable<string> {
    return this.allowed()
  }

  has(id: string): boolean {
    return this.allowed().has(id)
  }

  // nothing else of the plan leaves through a previous epoch, even asked for by id
  get(id: string): Uint8Array | undefined {
    return this.allowed().has(id) ? this.inner.get(id) : undefined
  }

  add(plain: Uint8Array, from: string, expected?: (id: string) => boolean): Promise<Verdict> {
    return this.inner.add(plain, from, expected, this.allow)
  }
}

export async function createRoomNode(init: RoomNodeInit): Promise<RoomNode> {
  const { key, store, log } = init
  const topics = roomTopics(key.id)
  const verify = init.verify
  // Every record costs one signature check here, not three: bytes this peer
  // just signed are not checked again, and what the validator decoded is
  // handed to the subscriber (GossipSub passes it the same bytes object).
  const own = new WeakMap<Uint8Array, Opened>()
  const validated = new WeakMap<Uint8Array, Opened>()
  const openGossip = (sealed: Uint8Array): OpenResult => openSealed(key, sealed, verify)
  const decodeOnce = (sealed: Uint8Array): Opened | null => {
    const known = validated.get(sealed) ?? own.get(sealed)
    if (known) return known
    const opened = openGossip(sealed)
    return typeof opened === 'string' ? null : opened
  }
  // (boot, seq) of the latest presence beat per author: stale or replayed beats are ignored
  const beats = new Map<string, { boot: number; seq: number }>()
  // `from` is the neighbour that forwarded the bytes (for the log); the author is the record's
  const verdictFor = (topic: string, entry: OpenResult, mine: boolean, from: string): Verdict => {
    if (typeof entry === 'string') {
      log(`dropped gossip via ${from}: ${entry}`)
      return 'reject'
    }
    const record = entry.record
    if (topic === topics.plan) {
      if (!isPlanRecord(record)) {
        log(`dropped gossip via ${from}: a ${record.kind} on the plan topic`)
        return 'reject'
      }
      if (init.forward && !init.forward(record)) {
        // an earlier epoch carries only what brings a returning member on
        log(`ignored a ${record.kind} via ${from} on a previous epoch`)
        return 'ignore'
      }
      // known, or over its author's quota (protocol/quota.ts): not kept, so not forwarded
      if (mine || store.wouldKeep(record)) return 'accept'
      store.noteOverQuota(record)
      return 'ignore'
    }
    if (topic === topics.presence && record.kind === 'presence' && !init.forward) {
      const last = beats.get(record.from)
      if (
        last &&
        (record.boot < last.boot || (record.boot === last.boot && record.seq <= last.seq))
      ) {
        return 'ignore'
      }
      beats.set(record.from, { boot: record.boot, seq: record.seq })
      return 'accept'
    }
    log(`dropped gossip via ${from}: a ${record.kind} on ${topic}`)
    return 'reject'
  }
  const remember = (bytes: Uint8Array, opened: OpenResult): OpenResult => {
    if (typeof opened !== 'string') validated.set(bytes, opened)
    return opened
  }
  const validate = (topic: string, bytes: Uint8Array, from: string): Verdict | Promise<Verdict> => {
    const mine = own.get(bytes)
    if (mine !== undefined) return verdictFor(topic, mine, true, from)
    // in a tab: unseal and verify in the signature worker, batched
    if (init.opener) {
      return init.opener
        .open(bytes)
        .then((opened) => verdictFor(topic, remember(bytes, opened), false, from))
    }
    return verdictFor(topic, remember(bytes, openGossip(bytes)), false, from)
  }

  const inner: RecordStore = init.forward ? new FilteredStore(store, init.forward) : store
  let node: SwarmNode
  try {
    node = await init.createNode({
      room: key.id,
      relays: init.relays,
      privateKey: init.privateKey,
      validate,
      authorOf: (_topic, bytes) => authorNamed(key, bytes),
      ...(init.memberOf ? { memberOf: init.memberOf } : {}),
      store: new SealedStore(key, inner, log),
      maxRecordBytes: MAX_WIRE_BYTES + SEAL_OVERHEAD,
      ...(init.netLogger ? { logger: init.netLogger } : {}),
    })
  } catch (err) {
    init.opener?.close()
    throw err
  }
  const traffic = init.traffic
  node.subscribe(topics.plan, (bytes) => {
    if (traffic) {
      traffic.received++
      traffic.receivedBytes += bytes.length
    }
    const opened = decodeOnce(bytes)
    if (opened && isPlanRecord(opened.record)) init.onPlan?.(opened.record, opened.plain)
  })
  if (!init.forward) {
    node.subscribe(topics.presence, (bytes) => {
      if (traffic) {
        traffic.received++
        traffic.receivedBytes += bytes.length
      }
      const record = decodeOnce(bytes)?.record
      if (record?.kind === 'presence') init.onPresence?.(record)
    })
  }
  let stopping: Promise<void> | undefined
  return {
    node,
    key,
    async publish(record, plain) {
      const bytes = sealRecord(key, plain)
      own.set(bytes, { record, plain })
      const topic = isPlanRecord(record) ? topics.plan : topics.presence
      await node.publish(topic, bytes)
      if (traffic) {
        traffic.published++
        traffic.publishedBytes += bytes.length
      }
    },
    stop() {
      stopping ??= node.stop().finally(() => init.opener?.close())
      return stopping
    },
  }
}
