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
import type { NetLogger, SwarmNode, SwarmNodeInitBase } from '../net/types'
import { encodeRecord, type Ed25519Verify, type Signer } from '../protocol/codec'
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
import { validateRecord } from '../protocol/validate'
import { exportJson, exportMarkdown } from '../plan/export'
import type { PlanTree } from '../plan/tree'
import type { PeerInput } from '../roles/index'
import { modelLabel } from './model-config'
import type { StartCore } from './host'
import type { RecordPersistence } from './persist'
import { isPlanRecord, PlanStore } from './store'
import type { BatchDecoder } from '../protocol/batch-verify'
import { archiveFinished } from './archive'
import { AntiEntropyClock } from './anti-entropy'
import { JOIN_FALLBACK_MS, JOIN_RECHECK_MS, JOIN_ROUND_MAX_MS, joinsWithoutSync } from './join'
import type { LiveText } from './live-text'
import { addCall, EMPTY_CALL_LOG, restoreCallLog, type CallStore } from './call-log'
import { DEFAULT_BUDGET } from './budget'
import { AuthorQuotaError, GoalLimitError, ownGoalWouldWait } from './goal-limit'
import type { OpenKey } from './opener'
import { createRoomNode, type GossipOpener, type RoomNode } from './room-node'
import { startMembers, type MemberParts, type StartedMembers } from './runtime-members'
import { NotOwnerError } from './members'
import { membersView, type MembersView } from './members-view'
import { stableRoomId, type RoomKey } from '../protocol/room-key'
import { deriveMemberKey } from '../protocol/member-key'
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
/**
 * How long an owner's removal waits for its sync round with its neighbours
 * (so the rekey keeps the removed member's records they hold and it has not
 * seen yet): a session with a linked peer takes well under a second; a
 * slow one is not worth holding the removal for.
 */
export const REKEY_SYNC_MAX_MS = 5_000
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
  /** where the room's member data is kept (members-persist.ts); default memory */
  members?: MemberParts['persistence']
  /** opens and verifies an epoch's gossip elsewhere (a tab's signature worker); default in-process */
  openerFor?: (key: OpenKey) => GossipOpener | null
}

type Listener<E extends keyof RuntimeEvents> = (detail: RuntimeEvents[E]) => void

export async function createRuntime(parts: RuntimeParts): Promise<PeerRuntime> {
  const { init } = parts
  // default: murmuration:runtime (dropped records, publish failures), off unless enabled
  const debug = debugLog('runtime')
  const log = parts.log ?? ((message: string) => debug('%s', message))
  const now = parts.now ?? Date.now
  // the network and the relay see only the epoch's transport id, records the
  // room's stable id (version 7); the secret stays here
  const roomKey = init.room
  const room = init.member
    ? stableRoomId(roomKey.name, init.member.owner)
    : (init.roomId ?? roomKey.id)
  const keyOf = (key: RoomKey): OpenKey => ({ id: key.id, recordKey: key.recordKey, records: room })
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
  // this peer's member (runtime-members.ts), once started: restoring the store delivers records before
  let members: StartedMembers | null = null
  const store = new PlanStore({
    room,
    persistence: parts.persistence,
    onRecord: (record) => {
      recordArrived()
      node?.roomActive()
      deliver(record)
      members?.members.recordArrived(record)
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
  const publish = (records: WireRecord[]) => {
    outbox = outbox.then(async () => {
      for (const record of records) {
        const plain = await encodeRecord(record, signer)
        try {
          await net?.publish(record, plain)
        } catch (err) {
          log(`could not publish a ${record.kind}: ${(err as Error).message}`)
        }
        if (isPlanRecord(record)) store.addVerified(record, plain)
      }
    })
  }

  const memberView = (): MembersView | null => {
    if (!members) return null
    const live = core.activity().swarm.map((p) => ({ peerId: p.peerId, role: p.role }))
    return membersView(members.members.membership(), members.members.me.id, { peerId, role }, live)
  }
  // publishes and resolves once sent (members.ts waits for its admits and rekeys)
  const publishNow = async (records: WireRecord[]) => {
    publish(records)
    await outbox
  }
  if (init.member) {
    members = await startMembers({
      member: init.member,
      link: roomKey,
      stable: room,
      peerId,
      parts: { ...(parts.members ? { persistence: parts.members } : {}) },
      store,
      publish: publishNow,
      connect: (key) => connect(keyOf(key)),
      syncFirst: () => syncBeforeRekey(),
      disconnect: async () => {
        for (const off of offNode.splice(0)) off()
        await net?.stop()
      },
      forwarding: {
        relays: init.relays,
        createNode: parts.createNode,
        ...(parts.verify ? { verify: parts.verify } : {}),
        ...(parts.netLogger ? { netLogger: parts.netLogger } : {}),
      },
      onChange: () => {
        const view = memberView()
        if (view) emit('members', view)
      },
      now,
      log,
    })
    // a PeerId says whom it acts for before anything else it publishes
    publish([members.members.bind()])
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
      ...(init.member ? { owner: init.member.owner } : {}),
    },
    records: restored,
    model,
    budget: init.budget ?? DEFAULT_BUDGET,
    authors: goalsFrom === 'anyone' ? null : [peerId],
    tools: { ...(init.tools ?? NO_TOOLS) },
    ...(role === 'executor' && init.mcp ? { mcpSettings: init.mcp } : {}),
    // its person's own goals are its member's (any of their tabs and agents), for tool consent
    ...(init.member ? { member: deriveMemberKey(init.member.seed).id } : {}),
    publish,
    requestSync: () => checkSync(),
    onTree: (tree) => {
      planOver = tree.over
      node?.setPlanOver(planOver)
      emit('tree', tree)
    },
    onActivity: (activity) => emit('activity', activity),
    onEntry: (entry) => emit('entry', entry),
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

  // before a removal: what the neighbours hold of the member is kept too (members.ts)
  const syncBeforeRekey = async () => {
    if (!node) return
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([
      node.syncNow().catch((err: Error) => log(`sync before a rekey failed: ${err.message}`)),
      new Promise((resolve) => (timer = setTimeout(resolve, REKEY_SYNC_MAX_MS))),
    ])
    clearTimeout(timer)
  }

  // the room-scoped network of the current epoch (room-node.ts): rebuilt when the room moves on
  let net: RoomNode | null = null
  const offNode: Array<() => void> = []
  const connect = async (key: OpenKey): Promise<void> => {
    const next = await createRoomNode({
      key,
      relays: init.relays,
      privateKey: parts.privateKey,
      createNode: parts.createNode,
      store,
      ...(parts.openerFor ? { opener: parts.openerFor(key) ?? undefined } : {}),
      ...(parts.verify ? { verify: parts.verify } : {}),
      ...(parts.netLogger ? { netLogger: parts.netLogger } : {}),
      log,
      traffic,
      onPlan: (record, plain) => store.addVerified(record, plain),
      onPresence: (presence) => core.deliver([{ type: 'presence', presence }]),
      // bans and strikes reach a member's every PeerId (net/strikes.ts)
      memberOf: (peer) => members?.members.membership().memberOf(peer),
    })
    for (const off of offNode.splice(0)) off()
    const old = net
    net = next
    node = next.node
    node.setPlanOver(planOver)
    offNode.push(
      node.on('connections', (summary) => emit('connections', summary)),
      node.on('sync', (report) => {
        if (report.error === undefined) joinAfterRound()
      }),
    )
    emit('connections', node.connections())
    await old?.stop()
  }
  // the role starts warming up once it has caught up with the swarm: after its
  // first session, one round with every peer linked by then (join.ts)
  let joinRound = false
  const joinAfterRound = () => {
    if (joined || joinRound || !node) return
    joinRound = true
    let timer: ReturnType<typeof setTimeout> | undefined
    void Promise.race([
      node.syncNow().catch((err: Error) => log(`the join's sync round failed: ${err.message}`)),
      new Promise((resolve) => (timer = setTimeout(resolve, JOIN_ROUND_MAX_MS))),
    ]).then(() => {
      clearTimeout(timer)
      join()
    })
  }
  let joined = false
  const join = () => {
    if (joined) return
    joined = true
    clearTimeout(joinFallback)
    core.deliver([{ type: 'command', command: { type: 'joined' } }])
    members?.members
      .joined()
      .catch((err: Error) => log(`could not admit the owner: ${err.message}`))
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
  // a removed member (a reload after its removal) stays off the network
  if (!members?.members.removed) await connect(keyOf(members?.members.current ?? roomKey))
  if (members) {
    members.members.startRepublishing(() => node?.connections().quiet ?? false)
    members.forwarders.set(members.members.previousKeys())
  }
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
  // the timer runs only while it is needed: each turn wakes the page
  let authorsTimer: ReturnType<typeof setInterval> | undefined
  const followAuthors = () => {
    void refreshAuthors()
    clearInterval(authorsTimer)
    authorsTimer =
      goalsFrom === 'this-browser'
        ? setInterval(() => void refreshAuthors(), LOCAL_AUTHORS_REFRESH_MS)
        : undefined
  }
  followAuthors()

  // a person's record (goal, cancel) gets the checks every receiver applies
  // (the core checks its own): an invalid one is refused here, not published
  const ownRecord = <R extends WireRecord>(record: R): R => {
    const valid = validateRecord(record, { room, sender: peerId })
    if (!valid.ok) throw new Error(`invalid ${record.kind}: ${valid.detail}`)
    return record
  }
  const managing = () => {
    if (!members) throw new NotOwnerError('manage members (this peer has no member)')
    return members.members
  }
  const runtime: PeerRuntime = {
    peerId,
    room: roomKey.name,
    roomId: room,
    role,
    tree: (): PlanTree => core.tree(),
    activity: (): RoleActivity => core.activity(),
    connections: () => node!.connections(),
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
      if (ownGoalWouldWait(store.records(), goal, members?.members.membership()))
        throw new GoalLimitError()
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
    setMcp(settings) {
      core.setMcp(settings)
    },
    answerToolCall(id, allow) {
      core.answerToolCall(id, allow)
    },
    setTools(consent) {
      core.setTools(consent)
    },
    setModel(next) {
      core.setModel(next)
    },
    modelChecked(checked, verdict) {
      core.modelChecked(checked, verdict)
    },
    setBudget(limits) {
      core.setBudget(limits)
    },
    setGoalsFrom(source) {
      goalsFrom = source
      followAuthors()
    },
    exportPlan(goalId, format) {
      return format === 'json'
        ? exportJson(core.tree(), goalId)
        : exportMarkdown(core.tree(), goalId)
    },
    archiveFinished: () => archiveFinished(room, store, core, now(), members?.members.membership()),
    async syncRound() {
      if (!node) return 0
      const reports = await node.syncNow().catch(() => [])
      return reports.filter((report) => report.error === undefined).length
    },
    members: () => memberView(),
    roomKey: () => members?.members.current ?? roomKey,
    member: () => (init.member ? { owner: init.member.owner, seed: init.member.seed } : null),
    invites: () => members?.members.savedInvites() ?? [],
    invitePerson: (name, coOwner) => managing().invite(name, coOwner),
    makeCoOwner: (member) => managing().makeCoOwner(member),
    removeMember: (member) => managing().remove(member),
    resetInvite: (member) => managing().reset(member),
    async stop() {
      antiEntropy.stop()
      clearInterval(authorsTimer)
      clearTimeout(joinFallback)
      core.stop()
      await outbox.catch(() => {})
      for (const off of offNode.splice(0)) off()
      await members?.stop()
      await net?.stop()
      store.close()
      await parts.persistence.close?.()
    },
  }
  return runtime
}
