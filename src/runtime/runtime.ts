/**
 * The peer runtime, common to tabs and headless agents: bytes from the
 * network are validated once (GossipSub validator, or sync), land in the
 * plan store, go to the role core; what the core publishes is signed here
 * and gossiped. The platform supplies the node, the identity, storage and
 * where the core runs. This file puts one peer together from parts kept in
 * modules of their own: the epoch's network (room-node.ts), the core's
 * inputs (core-inputs.ts), the outbox that signs (outbox.ts), the join
 * (join.ts), the person's own records (person-records.ts), the members
 * (runtime-members.ts), the call log (runtime-calls.ts), whose goals the
 * role works on (goal-authors.ts), the traffic counts (traffic.ts) and the
 * events (runtime-events.ts).
 */
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { PrivateKey } from '@libp2p/interface'
import type { Capability, ModelConfig } from '../llm/types'
import { debugLog } from '../net/log'
import type { NetLogger, SwarmNode, SwarmNodeInitBase } from '../net/types'
import type { Ed25519Verify, Signer } from '../protocol/codec'
import type { PlanRecord, WireRecord } from '../protocol/records'
import { exportJson, exportMarkdown } from '../plan/export'
import type { PlanTree } from '../plan/tree'
import { modelLabel } from './model-config'
import type { StartCore } from './host'
import type { RecordPersistence } from './persist'
import { PlanStore } from './store'
import type { BatchDecoder } from '../protocol/batch-verify'
import { archiveFinished } from './archive'
import { CoreInputs } from './core-inputs'
import { AntiEntropyClock } from './anti-entropy'
import { Join } from './join'
import type { LiveText } from './live-text'
import type { CallStore } from './call-log'
import { loadCalls } from './runtime-calls'
import { DEFAULT_BUDGET } from './budget'
import { authorsAtStart, GoalAuthors } from './goal-authors'
import type { OpenKey } from './opener'
import { Outbox } from './outbox'
import { personRecords } from './person-records'
import { createRoomNode, type GossipOpener, type RoomNode } from './room-node'
import {
  memberApi,
  startMembers,
  syncBeforeRekey,
  viewOfMembers,
  type MemberParts,
  type StartedMembers,
} from './runtime-members'
import type { MembersView } from './members-view'
import { stableRoomId, type RoomKey } from '../protocol/room-key'
import { deriveMemberKey } from '../protocol/member-key'
import { RuntimeEmitter } from './runtime-events'
import { emptyTraffic, trafficNow } from './traffic'
import {
  NO_TOOLS,
  type GoalSource,
  type PeerRuntime,
  type RoleActivity,
  type RuntimeInit,
} from './types'

export const DEFAULT_CAPACITY = 4
export { ANTI_ENTROPY_INTERVAL_MS } from './anti-entropy'
export { LOCAL_AUTHORS_REFRESH_MS } from './goal-authors'
export { JOIN_FALLBACK_MS } from './join'
export { REKEY_SYNC_MAX_MS } from './runtime-members'
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
  const events = new RuntimeEmitter()

  // gossip counted by the room's network, across its epochs (traffic.ts)
  const traffic = emptyTraffic()

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
  const calls = await loadCalls(parts.callStore, log)
  // the text of this peer's running execute and roll-up calls (live-text.ts); never gossiped
  let live: LiveText[] = []

  // signed here, gossiped on the current epoch's network (outbox.ts)
  const outbox = new Outbox({
    signer,
    send: (record, plain) => net?.publish(record, plain),
    store,
    log,
  })
  const publish = (records: WireRecord[]) => outbox.publish(records)

  const memberView = (): MembersView | null =>
    members ? viewOfMembers(members, core.activity(), { peerId, role }) : null
  if (init.member) {
    members = await startMembers({
      member: init.member,
      link: roomKey,
      stable: room,
      peerId,
      parts: { ...(parts.members ? { persistence: parts.members } : {}) },
      store,
      publish: (records) => outbox.publishNow(records),
      connect: (key) => connect(keyOf(key)),
      syncFirst: () => syncBeforeRekey(node, log),
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
        if (view) events.emit('members', view)
      },
      now,
      log,
    })
    // a PeerId says whom it acts for before anything else it publishes
    publish([members.members.bind()])
  }

  const role = init.role
  const goalsFrom: GoalSource = init.goalsFrom ?? 'anyone'
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
    authors: authorsAtStart(goalsFrom, peerId),
    tools: { ...(init.tools ?? NO_TOOLS) },
    ...(role === 'executor' && init.mcp ? { mcpSettings: init.mcp } : {}),
    // its person's own goals are its member's (any of their tabs and agents), for tool consent
    ...(init.member ? { member: deriveMemberKey(init.member.seed).id } : {}),
    publish,
    requestSync: () => inputs.checkSync(),
    onTree: (tree) => {
      planOver = tree.over
      node?.setPlanOver(planOver)
      events.emit('tree', tree)
    },
    onActivity: (activity) => events.emit('activity', activity),
    onEntry: (entry) => events.emit('entry', entry),
    onCall: (call) => {
      calls.add(call)
      events.emit('call', call)
    },
    onLive: (next) => {
      live = next
      events.emit('live', next)
    },
    log,
  })
  // records in batches, and the answers of the core's sync checks (core-inputs.ts)
  const inputs = new CoreInputs({ core, node: () => node, log })
  deliver = (record) => inputs.record(record)

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
      node.on('connections', (summary) => events.emit('connections', summary)),
      node.on('sync', (report) => {
        if (report.error === undefined) join.sessionEnded()
      }),
    )
    events.emit('connections', node.connections())
    await old?.stop()
  }
  // the role starts warming up once it has caught up with the swarm (join.ts)
  const join = new Join({
    node: () => node,
    store,
    peerId,
    onJoined: () => {
      core.deliver([{ type: 'command', command: { type: 'joined' } }])
      members?.members
        .joined()
        .catch((err: Error) => log(`could not admit the owner: ${err.message}`))
    },
    now,
    log,
  })
  // a removed member (a reload after its removal) stays off the network
  if (!members?.members.removed) await connect(keyOf(members?.members.current ?? roomKey))
  members?.republishAndForward(() => node?.connections().quiet ?? false)
  const antiEntropy = new AntiEntropyClock({
    round: () => {
      node?.syncNow().catch((err: Error) => log(`anti-entropy failed: ${err.message}`))
    },
    now,
  })
  recordArrived = () => antiEntropy.recordArrived()

  const authors = new GoalAuthors({
    source: goalsFrom,
    peerId,
    ...(parts.localAuthors ? { localAuthors: parts.localAuthors } : {}),
    setAuthors: (next) => core.setAuthors(next),
    log,
  })

  const person = personRecords({
    room,
    peerId,
    role,
    store,
    outbox,
    membership: () => members?.members.membership(),
    now,
  })
  const runtime: PeerRuntime = {
    peerId,
    room: roomKey.name,
    roomId: room,
    role,
    tree: (): PlanTree => core.tree(),
    activity: (): RoleActivity => core.activity(),
    connections: () => node!.connections(),
    traffic: () => trafficNow(traffic, store),
    records: () => store.records(),
    calls: () => calls.entries(),
    live: () => live,
    on: (event, cb) => events.on(event, cb),
    ...person,
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
      authors.set(source)
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
    ...memberApi(members, init.member, roomKey, memberView),
    async stop() {
      antiEntropy.stop()
      authors.stop()
      join.stop()
      core.stop()
      await outbox.sent().catch(() => {})
      for (const off of offNode.splice(0)) off()
      await members?.stop()
      await net?.stop()
      store.close()
      await parts.persistence.close?.()
    },
  }
  return runtime
}
