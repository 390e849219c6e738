/**
 * The peer core: plan state, the swarm as this peer hears it, and the
 * role's bookkeeping, advanced by `step(peer, inputs, now)`.
 *
 * Role logic is level-triggered: after every batch of inputs, each role looks
 * at the whole derived plan and asks "what should I be doing now?". Nothing
 * depends on the order in which inputs arrived, and a duplicate input is a
 * no-op, so reordering and duplication by gossip cannot change an outcome.
 */
import { ignoredSteering } from './steering-log'
import type { LlmOutcome, LlmTask, LlmTaskKind } from './llm-contract'
import { taskId } from '../protocol/ids'
import {
  stamp,
  type Draft,
  type PlanRecord,
  type Presence,
  type WireRecord,
} from '../protocol/records'
import {
  MAX_TASK_ATTEMPTS,
  quietRoomAfterMs,
  RETRY_FAILED_AFTER_MS,
  WARMUP_MS,
} from '../protocol/rules'
import { beatEvery, beatKey, shouldBeat } from './presence'
import { validateRecord } from '../protocol/validate'
import { createSyncRounds, syncEnded, type SyncRounds } from './neighbours'
import { chaseLapsed, noticeLapse } from './lapse'
import { derivePlan, type DerivedPlan } from '../plan/derive'
import { deriveMembership, type Membership } from '../protocol/membership'
import { planOver } from '../plan/archive'
import { PlanState } from '../plan/state'
import type { Capability } from '../protocol/capabilities'
import type { ToolGroup } from '../protocol/tool-groups'
import {
  createView,
  hearPresence,
  liveCount,
  offeredCapabilities,
  offeredToolGroups,
  workingCapabilities,
  type SwarmView,
} from './view'
import {
  callFinished,
  healAfterPause,
  modelChanged,
  modelChecked,
  UNKNOWN_MODEL,
} from './model-health'
import {
  emptyEffects,
  type Command,
  type Effects,
  type ModelStatus,
  type PeerConfig,
  type PeerInput,
} from './types'

/** An LLM call (or a claimed task waiting for its window) this peer is busy with. */
export interface Work {
  requestId: string
  /** the call's task kind; 'decide' for a decide claim (its work is an accept, no call) */
  kind: LlmTaskKind | 'decide'
  /** the goal, proposal or task the work is for */
  subject: string
  /** exclusive tasks: the task id and the epoch this peer claimed */
  task?: string
  epoch?: number
  /** local time the claim was published (claims) or the call started */
  since: number
  /** false while a claim waits out its window before the call starts */
  started: boolean
  /**
   * a contested claim (not the first choice, a takeover, a resumed claim,
   * a decide claim): it starts only after a sync round with its neighbours
   * asked for at or after this local time (the claim's; for a decide claim
   * DECIDE_CHECK_DELAY_MS later), so that it first hears whatever gossip lost
   * (claims.ts)
   */
  checkFrom?: number
  /** execute and rollup: the answer, held back while the work is lapsed (lapse.ts) */
  outcome?: LlmOutcome
  /** local time this peer found it had been away longer than a lease while holding this work (lapse.ts) */
  lapsedAt?: number
  llm: LlmTask | null
  /** the peer's modelGeneration when its call started: an answer of a replaced model says nothing of the new one */
  generation?: number
}

export interface Counters {
  llmCalls: Record<LlmTaskKind, number>
  /** execute/rollup calls that finished but whose output was not published */
  wastedExecutions: number
  aborted: number
  /** task ids this peer finished an execute/rollup call for (ok), for the simulator */
  executed: string[]
}

export interface PeerState {
  config: PeerConfig
  plan: PlanState
  view: SwarmView
  /** local time this run of the peer started; also its presence `boot` */
  startedAt: number
  /**
   * local time the warm-up began; null until the peer joined
   * (config.joinFirst), and while it is back from being away (lapse.ts)
   */
  warmFrom: number | null
  /** local time of its latest step: a gap longer than a lease means it was away (lapse.ts) */
  lastStepAt: number
  /** local time it found it had been away, until its neighbours have had their say (lapse.ts) */
  awayAt: number | null
  seq: number
  lastBeatAt: number
  /** the `every` of this peer's last beat (presence.ts) */
  lastEvery: number
  /** beatKey of the last beat: a beat is due when what it would say has changed */
  lastBeatKey: string
  /** a beat was asked for (a claim, a change of health or settings) */
  beatDue: boolean
  /** a peer it did not know was heard since the last beat */
  newcomerHeard: boolean
  /** local time of the last plan record heard (or of the start): the room is quiet a while after it (roomQuiet) */
  lastPlanAt: number
  /** may take new work with its model (model-health.ts); its beats say so */
  healthy: boolean
  unhealthySince: number
  lastError: string | null
  /** what is known of the model in use (model-health.ts) */
  modelStatus: ModelStatus
  /** counts the person's model changes: a call's answer is about the model it started with */
  modelGeneration: number
  /** ids of this peer's failure records made with a model it has since replaced: they no longer hold it back */
  forgiven: Set<string>
  work: Map<string, Work>
  /** local times at which something was first observed, keyed by a role-chosen string */
  firstSeen: Map<string, number>
  counters: Counters
  derivedCache: DerivedPlan | null
  /** anti-entropy rounds this peer asked for (Effects.sync) */
  syncs: SyncRounds
}

export function createPeer(config: PeerConfig, now: number, plan = new PlanState()): PeerState {
  return {
    config: {
      ...config,
      capabilities: [...config.capabilities],
      ...(config.tools ? { tools: [...config.tools] } : {}),
    },
    plan,
    view: createView(),
    startedAt: now,
    warmFrom: config.joinFirst === true ? null : now,
    lastStepAt: now,
    awayAt: null,
    seq: 0,
    lastBeatAt: -Infinity,
    lastEvery: 0,
    lastBeatKey: '',
    beatDue: true,
    newcomerHeard: false,
    lastPlanAt: now,
    healthy: true,
    unhealthySince: 0,
    lastError: null,
    modelStatus: UNKNOWN_MODEL,
    modelGeneration: 0,
    forgiven: new Set(),
    work: new Map(),
    firstSeen: new Map(),
    counters: {
      llmCalls: { decompose: 0, score: 0, execute: 0, rollup: 0 },
      wastedExecutions: 0,
      aborted: 0,
      executed: [],
    },
    derivedCache: null,
    syncs: createSyncRounds(),
  }
}

/** What the live executors of the room offer now, as this peer hears them (view.ts). */
export function roomCapabilities(peer: PeerState, now: number): Capability[] {
  return offeredCapabilities(peer.view, peer.config, now)
}

/** Of those, what the executors that can work now offer (healthy beats; this peer if it works). */
export function workingRoomCapabilities(peer: PeerState, now: number): Capability[] {
  const works = peer.healthy && peer.config.consent?.paused !== true
  return workingCapabilities(peer.view, peer.config, works, now)
}

/** The tool groups the room's live executors announce (view.ts), as a task's `roomTools`: absent when none. */
export function roomTools(peer: PeerState, now: number): { roomTools?: ToolGroup[] } {
  const groups = offeredToolGroups(peer.view, peer.config, now)
  return groups.length > 0 ? { roomTools: groups } : {}
}

export function derived(peer: PeerState): DerivedPlan {
  if (!peer.derivedCache || peer.derivedCache.version !== peer.plan.version) {
    // with an owner (version 7), only admitted members' records count, limits per member
    const membership = roomMembership(peer)
    peer.derivedCache = derivePlan(peer.plan, membership ? { membership } : {})
  }
  return peer.derivedCache
}

/** The room's membership when this peer knows its owner (version 7); else none. */
export function roomMembership(peer: PeerState): Membership | undefined {
  return peer.config.owner ? membershipOf(peer, peer.config.owner) : undefined
}

/** The room's membership, derived again only when a member record arrived (one object meanwhile). */
const memberships = new WeakMap<PeerState, { count: number; membership: Membership }>()
function membershipOf(peer: PeerState, owner: string): Membership {
  const records = peer.plan.memberRecords()
  const held = memberships.get(peer)
  if (held?.count === records.length) return held.membership
  const membership = deriveMembership(peer.config.room, owner, records)
  memberships.set(peer, { count: records.length, membership })
  return membership
}

/**
 * Is the room quiet for this peer: no plan record heard for
 * quietRoomAfterMs (shorter once the plan is over)? Its beats and ticks slow
 * down then (presence.ts, runtime/cadence.ts).
 */
export function roomQuiet(peer: PeerState, now: number): boolean {
  return now - peer.lastPlanAt >= quietRoomAfterMs(planOver(derived(peer)))
}

/**
 * Has this peer heard the swarm long enough to act? Until then it claims,
 * proposes, scores and resumes nothing: its view of the plan and of who is
 * alive may be missing what its peers did meanwhile. Nor does a peer whose
 * own records count for nothing (PROTOCOL.md §0.1): its member not admitted
 * yet (the admit has not reached it), or removed. Its claims would not count
 * even in its own view, so it would take the same task again and again,
 * spending its person's key on work nobody takes.
 */
export function isWarm(peer: PeerState, now: number): boolean {
  return peer.warmFrom !== null && now - peer.warmFrom >= WARMUP_MS && !outOfRoom(peer)
}

/**
 * With a membership (version 7): this peer acts for no admitted member yet,
 * or for a removed one (its link reset, or removed), or a removal froze it.
 */
export function outOfRoom(peer: PeerState): boolean {
  const membership = roomMembership(peer)
  if (!membership) return false
  const self = peer.config.peerId
  const member = membership.memberOf(self)
  return member === undefined || !membership.isActive(member) || membership.frozen.has(self)
}

/** First time `key` was observed, remembered from now on. */
export function since(peer: PeerState, key: string, now: number): number {
  let at = peer.firstSeen.get(key)
  if (at === undefined) {
    at = now
    peer.firstSeen.set(key, at)
  }
  return at
}

/**
 * Stamp a draft as this peer's record, check it as any receiver would, then
 * apply it locally and queue it for publishing. A record that fails the
 * check is neither kept nor published (peers would reject it and strike
 * this peer): a bug or an out-of-range value, reported as an event.
 */
export function emit<R extends WireRecord>(
  peer: PeerState,
  fx: Effects,
  draft: Omit<Draft<R>, 'room' | 'from'>,
): R | null {
  const record = stamp<R>({
    ...draft,
    room: peer.config.room,
    from: peer.config.peerId,
  } as Draft<R>)
  const valid = validateRecord(record, { room: peer.config.room, sender: peer.config.peerId })
  if (!valid.ok) {
    fx.events.push({ type: 'invalid-record', kind: record.kind, reason: valid.detail })
    return null
  }
  if (record.kind !== 'presence') peer.plan.add(record as PlanRecord)
  fx.publish.push(record)
  return record
}

export function startLlm(peer: PeerState, fx: Effects, work: Work, task: LlmTask): void {
  work.llm = task
  work.started = true
  work.generation = peer.modelGeneration
  peer.work.set(work.requestId, work)
  peer.counters.llmCalls[task.kind]++
  fx.startLlm.push({ id: work.requestId, task })
  fx.events.push({ type: 'llm-started', request: work.requestId, kind: task.kind })
}

export function abortWork(peer: PeerState, fx: Effects, work: Work, why: string): void {
  peer.work.delete(work.requestId)
  if (work.started) {
    peer.counters.aborted++
    // a held-back answer's call has already ended: nothing to abort there
    if (!work.outcome) fx.abortLlm.push(work.requestId)
    fx.events.push({ type: 'llm-aborted', request: work.requestId, kind: work.kind, why })
  }
}

/**
 * Slots in use (a beat's `load`). A held decide claim takes none: it is no
 * call (its classification calls are work of their own), and a decider
 * holds the task from the goal's first proposal until the votes allow an
 * accept, while it should go on scoring.
 */
function usedSlots(peer: PeerState): number {
  let used = 0
  for (const work of peer.work.values()) if (!isDecideClaim(work)) used++
  return used
}

export function freeSlots(peer: PeerState): number {
  return peer.config.capacity - usedSlots(peer)
}

/** The placeholder of a decide claim (claims.ts): deciding makes no LLM call. */
function isDecideClaim(work: Work): boolean {
  return work.kind === 'decide'
}

function handleCommand(peer: PeerState, fx: Effects, command: Command, now: number): void {
  switch (command.type) {
    case 'set-capabilities':
      peer.config.capabilities = [...command.capabilities]
      peer.config.writesUnrunCode = command.writesUnrunCode ?? false
      peer.config.tools = [...(command.tools ?? [])]
      peer.beatDue = true
      break
    case 'set-model':
      peer.config.model = command.model
      peer.config.offline = command.offline
      for (const record of peer.plan.records()) {
        if (record.kind === 'failure' && record.from === peer.config.peerId)
          peer.forgiven.add(record.id)
      }
      modelChanged(peer, fx, now)
      peer.beatDue = true
      break
    case 'model-checked':
      modelChecked(peer, fx, command.verdict, now)
      break
    case 'joined':
      peer.warmFrom ??= now
      break
    case 'set-consent': {
      const wasPaused = peer.config.consent?.paused === true
      peer.config.consent = {
        authors: command.consent.authors === null ? null : [...command.consent.authors],
        paused: command.consent.paused,
        skipGoals: [...command.consent.skipGoals],
      }
      // a paused peer says so (as not healthy) so that others do not wait for it to claim
      if (wasPaused !== command.consent.paused) peer.beatDue = true
      break
    }
  }
}

/** Did this peer fail `subject` (at `stage`) with its current model? */
export function failedHere(peer: PeerState, subject: string, stage?: string): boolean {
  return peer.plan
    .failures(subject)
    .some(
      (failure) =>
        failure.from === peer.config.peerId &&
        !peer.forgiven.has(failure.id) &&
        (stage === undefined || failure.stage === stage),
    )
}

/**
 * May this peer try `subject` (a goal to split, a proposal to score) again
 * at `stage`? Yes if it has not failed it with its current model; else
 * RETRY_FAILED_AFTER_MS after its latest failure, while it has failed it
 * fewer than MAX_TASK_ATTEMPTS times.
 */
export function mayTry(peer: PeerState, subject: string, stage: string, now: number): boolean {
  const mine = peer.plan
    .failures(subject)
    .filter(
      (failure) =>
        failure.from === peer.config.peerId &&
        failure.stage === stage &&
        !peer.forgiven.has(failure.id),
    )
  if (mine.length === 0) return true
  if (mine.length >= MAX_TASK_ATTEMPTS) return false
  const latest = Math.max(...mine.map((failure) => since(peer, `failed:${failure.id}`, now)))
  return now - latest >= RETRY_FAILED_AFTER_MS
}

function heldTasks(peer: PeerState): string[] {
  const holding = [...peer.work.values()]
    .map((work) => work.task)
    .filter((task): task is string => task !== undefined)
  return [...new Set(holding)].slice(0, 64)
}

/** What an executor announces of its tool groups: absent when none (and for every other role). */
function announcedTools(peer: PeerState): { tools?: ToolGroup[] } {
  const tools = peer.config.role === 'executor' ? (peer.config.tools ?? []) : []
  return tools.length > 0 ? { tools } : {}
}

function currentBeatKey(peer: PeerState): string {
  return beatKey({
    healthy: peer.healthy,
    capabilities: peer.config.role === 'executor' ? peer.config.capabilities : [],
    tools: announcedTools(peer).tools ?? [],
    model: peer.config.model,
    offline: peer.config.offline,
  })
}

/** Beat if presence.ts says so. */
function maybeBeat(peer: PeerState, fx: Effects, now: number): void {
  const holding = heldTasks(peer)
  const key = currentBeatKey(peer)
  const known = liveCount(peer.view, now)
  const quiet = holding.length === 0 && roomQuiet(peer, now)
  const due = shouldBeat({
    now,
    lastBeatAt: peer.lastBeatAt,
    lastEvery: peer.lastEvery,
    holding: holding.length > 0,
    known,
    changed: peer.beatDue || key !== peer.lastBeatKey,
    newcomer: peer.newcomerHeard,
    quiet,
  })
  if (!due) return
  const every = beatEvery(holding.length > 0, known, quiet)
  peer.seq++
  peer.lastBeatAt = now
  peer.lastEvery = every
  peer.lastBeatKey = key
  peer.beatDue = false
  peer.newcomerHeard = false
  emit<Presence>(peer, fx, {
    kind: 'presence',
    role: peer.config.role,
    capabilities: peer.config.role === 'executor' ? peer.config.capabilities : [],
    ...announcedTools(peer),
    holding,
    load: usedSlots(peer),
    capacity: peer.config.capacity,
    healthy: peer.healthy && peer.config.consent?.paused !== true,
    model: peer.config.model,
    offline: peer.config.offline,
    boot: peer.startedAt,
    seq: peer.seq,
    every,
  })
}

export type RoleLogic = {
  /** an LLM call finished: publish what it produced, if it still counts */
  onLlm(
    peer: PeerState,
    fx: Effects,
    work: Work,
    outcome: Extract<PeerInput, { type: 'llm' }>['outcome'],
    now: number,
  ): void
  /** look at the plan and do what this role should be doing now */
  reconcile(peer: PeerState, fx: Effects, now: number): void
}

export function stepPeer(
  peer: PeerState,
  logic: RoleLogic,
  inputs: PeerInput | readonly PeerInput[],
  now: number,
): Effects {
  const fx = emptyEffects()
  // before any input: an answer arriving now must not go out if this holder was away
  noticeLapse(peer, fx, now)
  for (const input of Array.isArray(inputs) ? inputs : [inputs as PeerInput]) {
    switch (input.type) {
      case 'record':
        // a new record (not one already held) makes the room busy
        if (input.record.room === peer.config.room && peer.plan.add(input.record)) {
          peer.lastPlanAt = now
          const ignored = ignoredSteering(peer, input.record)
          if (ignored) fx.events.push(ignored)
        }
        break
      case 'presence':
        if (
          input.presence.from !== peer.config.peerId &&
          input.presence.room === peer.config.room
        ) {
          const known = peer.view.peers.has(input.presence.from)
          if (hearPresence(peer.view, input.presence, now) && !known) peer.newcomerHeard = true
        }
        break
      case 'llm': {
        const work = peer.work.get(input.requestId)
        if (!work) break // aborted meanwhile, or a duplicate answer
        peer.work.delete(input.requestId)
        fx.events.push({
          type: 'llm-finished',
          request: work.requestId,
          kind: work.kind,
          ok: input.outcome.ok,
        })
        callFinished(peer, fx, work, input.outcome, now)
        logic.onLlm(peer, fx, work, input.outcome, now)
        break
      }
      case 'command':
        handleCommand(peer, fx, input.command, now)
        break
      case 'tick':
        break
      case 'synced':
        syncEnded(peer, fx, now, input.answered === true)
        break
    }
  }
  healAfterPause(peer, fx, now)
  logic.reconcile(peer, fx, now)
  chaseLapsed(peer, fx, now)
  if (peer.config.role !== 'observer') maybeBeat(peer, fx, now)
  return fx
}

export { HEALTH_RETRY_MS } from './model-health'
export { taskId }
