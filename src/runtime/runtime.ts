/**
 * The peer runtime, common to tabs and headless agents: bytes from the
 * network are validated once (GossipSub validator, or sync), land in the
 * plan store, go to the role core; what the core publishes is signed here
 * and gossiped. The platform supplies the node, the identity, storage and
 * where the core runs.
 */
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { PrivateKey } from '@libp2p/interface'
import type { Capability, ModelConfig } from '../llm/types'
import { debugLog } from '../net/log'
import type { NetLogger, SwarmNode, SwarmNodeInitBase, Verdict } from '../net/types'
import { encodeRecord, MAX_WIRE_BYTES, type Ed25519Verify, type Signer } from '../protocol/codec'
import {
  newCancel,
  newGoal,
  newRedo,
  newSteer,
  newVerdict,
  type PlanRecord,
  type WireRecord,
} from '../protocol/records'
import { DEFAULT_MAX_DEPTH } from '../protocol/limits'
import { SYNC_CHECK_PEERS, SYNC_CHECK_SESSIONS } from '../protocol/rules'
import { roomTopics } from '../protocol/topics'
import { SEAL_OVERHEAD, sealRecord } from '../protocol/room-key'
import { validateRecord } from '../protocol/validate'
import { exportJson, exportMarkdown } from '../plan/export'
import type { PlanTree } from '../plan/tree'
import type { PeerInput } from '../roles/index'
import { modelLabel } from './driver'
import type { StartCore } from './host'
import type { RecordPersistence } from './persist'
import { SealedStore } from './sealed'
import { isPlanRecord, PlanStore } from './store'
import type { BatchDecoder } from '../protocol/batch-verify'
import { archiveFinished } from './archive'
import { AntiEntropyClock } from './anti-entropy'
import { JOIN_FALLBACK_MS, JOIN_RECHECK_MS, joinsWithoutSync } from './join'
import type { LiveText } from './live-text'
import { addCall, EMPTY_CALL_LOG, restoreCallLog, type CallStore } from './call-log'
import { DEFAULT_BUDGET } from './budget'
import { AuthorQuotaError, GoalLimitError, ownGoalWouldWait } from './goal-limit'
import { authorNamed, openSealed, type Opened, type OpenResult } from './opener'
import {
  NO_TOOLS,
  type GoalSource,
  type PeerRuntime,
  type RoleActivity,
  type RuntimeEvents,
  type RuntimeInit,
  type TrafficStats,
} from './types'

export const DEFAULT_CAPACITY = 4
export { ANTI_ENTROPY_INTERVAL_MS } from './anti-entropy'
export { JOIN_FALLBACK_MS } from './join'
/**
 * How often a role that works only on this browser's tabs' goals looks again
 * at which tabs those are: a tab opened since is heard of within this. The
 * role is level-triggered, so a goal written by that tab meanwhile is only
 * delayed, not lost; reading the slots is one small IndexedDB read.
 */
export const LOCAL_AUTHORS_REFRESH_MS = 5_000
const ALL_CAPABILITIES: Capability[] = ['can_write_text', 'can_run_code', 'can_query_api']

export interface RuntimeParts {
  init: RuntimeInit
  privateKey: PrivateKey
  createNode: (init: SwarmNodeInitBase) => Promise<SwarmNode>
  persistence: RecordPersistence
  startCore: StartCore
  log?: (message: string) => void
  /** the network layer's logger (default: its console logger) */
  netLogger?: NetLogger
  now?: () => number
  /** signature check for records from the network; default pure JS (Node passes node:crypto) */
  verify?: Ed25519Verify
  /** checks synced records in batches (PlanStore.addMany); Node passes its worker threads */
  decoder?: BatchDecoder
  /**
   * PeerIds of this browser's other tabs, for goalsFrom 'this-browser'
   * (default: none; this peer always counts as its own)
   */
  localAuthors?: () => Promise<string[]>
  /** where this peer's call log is kept across restarts (default: memory only) */
  callStore?: CallStore
  /** opens and verifies gossip elsewhere (a tab's signature worker); default in-process */
  opener?: { open(sealed: Uint8Array): Promise<OpenResult>; close(): void }
}

type Listener<E extends keyof RuntimeEvents> = (detail: RuntimeEvents[E]) => void

export async function createRuntime(parts: RuntimeParts): Promise<PeerRuntime> {
  const { init } = parts
  // default: murmuration:runtime (dropped records, publish failures), off unless enabled
  const debug = debugLog('runtime')
  const log = parts.log ?? ((message: string) => debug('%s', message))
  const now = parts.now ?? Date.now
  // the network, the relay and every record see only the room id; the secret stays here
  const roomKey = init.room
  const room = roomKey.id
  const topics = roomTopics(room)
  const peerId = peerIdFromPrivateKey(parts.privateKey).toString()
  const signer: Signer = { peerId, sign: (data) => parts.privateKey.sign(data) }
  const model: ModelConfig = init.model ?? { provider: 'offline', model: 'offline-v1' }
  const listeners = new Map<keyof RuntimeEvents, Set<Listener<keyof RuntimeEvents>>>()
  const emit = <E extends keyof RuntimeEvents>(event: E, detail: RuntimeEvents[E]) => {
    for (const cb of listeners.get(event) ?? []) (cb as Listener<E>)(detail)
  }

  const traffic: TrafficStats = {
    published: 0,
    publishedBytes: 0,
    received: 0,
    receivedBytes: 0,
    synced: 0,
    syncedBytes: 0,
  }

  // records restored from storage go to the core when it starts; later ones as they come
  const restored: PlanRecord[] = []
  let deliver: (record: PlanRecord) => void = (record) => {
    restored.push(record)
  }
  // declared before the store: restoring stored records already calls onRecord
  let node: SwarmNode | null = null
  // the plan is over (PlanTree.over): the node lets the room go quiet sooner
  let planOver = false
  // the anti-entropy cadence follows new records (anti-entropy.ts)
  let recordArrived = () => {}
  const store = new PlanStore({
    room,
    persistence: parts.persistence,
    onRecord: (record) => {
      recordArrived()
      node?.roomActive()
      deliver(record)
    },
    log,
    ...(parts.decoder ? { decoder: parts.decoder } : {}),
  })
  const dropped = await store.restore()
  if (dropped > 0) log(`dropped ${dropped} stored records that failed verification`)

  // this peer's own LLM calls, for the person whose key paid (never gossiped)
  const callStore = parts.callStore
  const keepCalls = (what: string, work: Promise<void> | undefined) =>
    work?.catch((err: Error) => log(`could not ${what} the call log: ${err.message}`))
  // the text of this peer's running execute and roll-up calls (live-text.ts); never gossiped
  let live: LiveText[] = []
  let callLog = EMPTY_CALL_LOG
  if (callStore) {
    try {
      const restoredCalls = restoreCallLog(await callStore.load())
      callLog = restoredCalls.log
      if (restoredCalls.evicted.length)
        void keepCalls('trim', callStore.remove(restoredCalls.evicted))
    } catch (err) {
      log(`could not load the call log: ${(err as Error).message}`)
    }
  }

  let outbox = Promise.resolve()
  // Every record costs one signature check here, not three: bytes this peer
  // just signed are not checked again, and what the validator decoded is
  // handed to the subscriber (GossipSub passes it the same bytes object).
  const verify = parts.verify
  // Gossip carries records sealed under the room key (sealed.ts); these maps
  // are keyed by the sealed bytes and keep the signed record they carry.
  const own = new WeakMap<Uint8Array, Opened>()
  const validated = new WeakMap<Uint8Array, Opened>()
  /** Opens and verifies gossip in-process (opener.ts). */
  const openGossip = (sealed: Uint8Array): OpenResult => openSealed(roomKey, sealed, verify)
  const decodeOnce = (sealed: Uint8Array): Opened | null => {
    const known = validated.get(sealed) ?? own.get(sealed)
    if (known) return known
    const opened = openGossip(sealed)
    return typeof opened === 'string' ? null : opened
  }
  const publish = (records: WireRecord[]) => {
    outbox = outbox.then(async () => {
      for (const record of records) {
        const plain = await encodeRecord(record, signer)
        const bytes = sealRecord(roomKey, plain)
        own.set(bytes, { record, plain })
        const topic = isPlanRecord(record) ? topics.plan : topics.presence
        try {
          await node?.publish(topic, bytes)
          traffic.published++
          traffic.publishedBytes += bytes.length
        } catch (err) {
          log(`could not publish a ${record.kind}: ${(err as Error).message}`)
        }
        if (isPlanRecord(record)) store.addVerified(record, plain)
      }
    })
  }

  const role = init.role
  let goalsFrom: GoalSource = init.goalsFrom ?? 'anyone'
  const core = parts.startCore({
    config: {
      peerId,
      room,
      role,
      capabilities: role === 'executor' ? (init.capabilities ?? ALL_CAPABILITIES) : [],
      capacity: init.capacity ?? DEFAULT_CAPACITY,
      model: modelLabel(model),
      offline: model.provider === 'offline',
      joinFirst: true,
    },
    records: restored,
    model,
    budget: init.budget ?? DEFAULT_BUDGET,
    authors: goalsFrom === 'anyone' ? null : [peerId],
    tools: { ...(init.tools ?? NO_TOOLS) },
    publish,
    requestSync: () => checkSync(),
    onTree: (tree) => {
      planOver = tree.over
      node?.setPlanOver(planOver)
      emit('tree', tree)
    },
    onActivity: (activity) => emit('activity', activity),
    onCall: (call) => {
      const added = addCall(callLog, call)
      callLog = added.log
      void keepCalls('save', callStore?.save(call))
      if (added.evicted.length) void keepCalls('trim', callStore?.remove(added.evicted))
      emit('call', call)
    },
    onLive: (next) => {
      live = next
      emit('live', next)
    },
    log,
  })
  // records come in bursts (a sync brings hundreds): hand them over in one batch, one step
  let batch: PeerInput[] = []
  const queueInput = (input: PeerInput) => {
    batch.push(input)
    if (batch.length === 1) {
      queueMicrotask(() => {
        const inputs = batch
        batch = []
        core.deliver(inputs)
      })
    }
  }
  deliver = (record) => queueInput({ type: 'record', record })

  // The core's check with its neighbours before a contested claim starts:
  // anti-entropy with SYNC_CHECK_SESSIONS linked peers, 'synced' once
  // SYNC_CHECK_PEERS of them have answered, queued behind the records they
  // brought so the core sees them first.
  const checkSync = () => {
    const done = (answered: boolean) => queueInput({ type: 'synced', answered })
    if (!node) return done(false)
    const round = { enough: SYNC_CHECK_PEERS, peers: SYNC_CHECK_SESSIONS }
    node.syncNow(round).then(
      (reports) => done(reports.some((report) => report.error === undefined)),
      (err: Error) => {
        log(`anti-entropy before a contested claim failed: ${err.message}`)
        done(false)
      },
    )
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
      // known, or over its author's quota (protocol/quota.ts): not kept, so not forwarded
      if (mine || store.wouldKeep(record)) return 'accept'
      store.noteOverQuota(record)
      return 'ignore'
    }
    if (topic === topics.presence && record.kind === 'presence') {
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
    if (parts.opener) {
      return parts.opener
        .open(bytes)
        .then((opened) => verdictFor(topic, remember(bytes, opened), false, from))
    }
    return verdictFor(topic, remember(bytes, openGossip(bytes)), false, from)
  }

  node = await parts.createNode({
    room,
    relays: init.relays,
    privateKey: parts.privateKey,
    validate,
    authorOf: (_topic, bytes) => authorNamed(roomKey, bytes),
    store: new SealedStore(roomKey, store, log),
    maxRecordBytes: MAX_WIRE_BYTES + SEAL_OVERHEAD,
    ...(parts.netLogger ? { logger: parts.netLogger } : {}),
  })
  node.setPlanOver(planOver)
  node.subscribe(topics.plan, (bytes) => {
    traffic.received++
    traffic.receivedBytes += bytes.length
    const opened = decodeOnce(bytes)
    if (opened && isPlanRecord(opened.record)) store.addVerified(opened.record, opened.plain)
  })
  node.subscribe(topics.presence, (bytes) => {
    traffic.received++
    traffic.receivedBytes += bytes.length
    const record = decodeOnce(bytes)?.record
    if (record?.kind === 'presence') core.deliver([{ type: 'presence', presence: record }])
  })
  node.on('connections', (summary) => emit('connections', summary))
  // the role starts warming up once it has caught up with the swarm
  let joined = false
  const join = () => {
    if (joined) return
    joined = true
    clearTimeout(joinFallback)
    stopJoinWatch()
    core.deliver([{ type: 'command', command: { type: 'joined' } }])
  }
  // no sync yet: start alone after a while, longer if this peer has reason
  // to expect company (join.ts)
  const joinStarted = now()
  let othersStored: boolean | undefined // looked up once: the store only grows
  const expectsPeers = () => {
    othersStored ??= store.records().some((r) => r.from !== peerId)
    return othersStored || (node?.connections().known ?? 0) > 0
  }
  const joinUnlessExpected = () => {
    if (joined) return
    const expected = expectsPeers()
    if (!joinsWithoutSync(now() - joinStarted, expected)) {
      joinFallback = setTimeout(joinUnlessExpected, JOIN_RECHECK_MS)
      return
    }
    if (expected) log('no sync with any peer yet: working with the plan this peer has')
    join()
  }
  let joinFallback = setTimeout(joinUnlessExpected, JOIN_FALLBACK_MS)
  const stopJoinWatch = node.on('sync', (report) => {
    if (report.error === undefined) join()
  })
  const antiEntropy = new AntiEntropyClock({
    round: () => {
      node?.syncNow().catch((err: Error) => log(`anti-entropy failed: ${err.message}`))
    },
    now,
  })
  recordArrived = () => antiEntropy.recordArrived()

  // "this browser's tabs": who they are changes as tabs open, so ask again now and then
  const localAuthors = parts.localAuthors ?? (async () => [])
  const refreshAuthors = async () => {
    if (goalsFrom === 'anyone') return core.setAuthors(null)
    let authors = [peerId]
    try {
      authors = [...new Set([peerId, ...(await localAuthors())])].sort()
    } catch (err) {
      log(`could not list this browser's tabs: ${(err as Error).message}`)
    }
    if (goalsFrom === 'this-browser') core.setAuthors(authors)
  }
  void refreshAuthors()
  const authorsTimer = setInterval(() => {
    if (goalsFrom === 'this-browser') void refreshAuthors()
  }, LOCAL_AUTHORS_REFRESH_MS)

  const swarmNode = node
  // a person's record (goal, cancel) gets the checks every receiver applies
  // (the core checks its own): an invalid one is refused here, not published
  const ownRecord = <R extends WireRecord>(record: R): R => {
    const valid = validateRecord(record, { room, sender: peerId })
    if (!valid.ok) throw new Error(`invalid ${record.kind}: ${valid.detail}`)
    return record
  }
  const runtime: PeerRuntime = {
    peerId,
    room: roomKey.name,
    roomId: room,
    role,
    tree: (): PlanTree => core.tree(),
    activity: (): RoleActivity => core.activity(),
    connections: () => swarmNode.connections(),
    traffic: () => ({ ...traffic, synced: store.synced, syncedBytes: store.syncedBytes }),
    records: () => store.records(),
    calls: () => [...callLog.entries],
    live: () => live,
    on(event, cb) {
      let set = listeners.get(event)
      if (!set) listeners.set(event, (set = new Set()))
      set.add(cb as Listener<keyof RuntimeEvents>)
      return () => set.delete(cb as Listener<keyof RuntimeEvents>)
    },
    async submitGoal(text, maxDepth = DEFAULT_MAX_DEPTH, approve = 'none') {
      // any role's person may write a goal (a headless observer's --goal): the
      // observer's role still publishes nothing of its own
      const goal = ownRecord(newGoal(room, peerId, text, now(), maxDepth, approve))
      // a goal over the limits per author would wait unseen: refuse it, saying why
      if (ownGoalWouldWait(store.records(), goal)) throw new GoalLimitError()
      if (!store.wouldKeep(goal)) throw new AuthorQuotaError('goal')
      publish([goal])
      await outbox
      return goal.id
    },
    async cancelGoal(goalId, reason) {
      if (role === 'observer') throw new Error('an observer publishes nothing')
      const cancel = ownRecord(newCancel(room, peerId, goalId, now(), reason))
      if (!store.wouldKeep(cancel)) throw new AuthorQuotaError('cancel')
      publish([cancel])
      await outbox
    },
    async steerGoal(action) {
      if (role === 'observer') throw new Error('an observer publishes nothing')
      // only the goal's author's steering counts (plan/steering.ts): others' would be ignored
      const record = ownRecord(
        action.kind === 'settings'
          ? newSteer(room, peerId, action.goal, action.paused, action.approve, now())
          : action.kind === 'verdict'
            ? newVerdict(room, peerId, action, now())
            : newRedo(room, peerId, action.task, action.note, now()),
      )
      if (!store.wouldKeep(record)) throw new AuthorQuotaError(record.kind)
      publish([record])
      await outbox
    },
    setCapabilities(capabilities) {
      core.setCapabilities(capabilities)
    },
    setTools(consent) {
      core.setTools(consent)
    },
    setModel(next) {
      core.setModel(next)
    },
    setBudget(limits) {
      core.setBudget(limits)
    },
    setGoalsFrom(source) {
      goalsFrom = source
      void refreshAuthors()
    },
    exportPlan(goalId, format) {
      return format === 'json'
        ? exportJson(core.tree(), goalId)
        : exportMarkdown(core.tree(), goalId)
    },
    archiveFinished: () => archiveFinished(room, store, core, now()),
    async stop() {
      antiEntropy.stop()
      clearInterval(authorsTimer)
      clearTimeout(joinFallback)
      core.stop()
      await outbox.catch(() => {})
      await swarmNode.stop()
      parts.opener?.close()
      store.close()
      await parts.persistence.close?.()
    },
  }
  return runtime
}
