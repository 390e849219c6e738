/**
 * The peer core: plan state, the swarm as this peer hears it, and the
 * role's bookkeeping, advanced by `step(peer, inputs, now)`.
 *
 * Role logic is level-triggered: after every batch of inputs, each role looks
 * at the whole derived plan and asks "what should I be doing now?". Nothing
 * depends on the order in which inputs arrived, and a duplicate input is a
 * no-op, so reordering and duplication by gossip cannot change an outcome.
 *
 * Here are the state and the step. What one input does is inputs.ts; what
 * roles read of the room, room-view.ts and warmth.ts; the peer's own
 * records, calls and beats, emit.ts, work.ts and presence.ts.
 */
import type { LlmOutcome, LlmTask, LlmTaskKind } from './llm-contract'
import { taskId } from '../protocol/ids'
import { createSyncRounds, type SyncRounds } from './neighbours'
import { chaseLapsed, noticeLapse } from './lapse'
import type { DerivedPlan } from '../plan/derive'
import { PlanState } from '../plan/state'
import { createView, type SwarmView } from './view'
import { healAfterPause, UNKNOWN_MODEL } from './model-health'
import { applyInput } from './inputs'
import { maybeBeat } from './presence'
import {
  emptyEffects,
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

/** First time `key` was observed, remembered from now on. */
export function since(peer: PeerState, key: string, now: number): number {
  let at = peer.firstSeen.get(key)
  if (at === undefined) {
    at = now
    peer.firstSeen.set(key, at)
  }
  return at
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
    applyInput(peer, logic, fx, input, now)
  }
  healAfterPause(peer, fx, now)
  logic.reconcile(peer, fx, now)
  chaseLapsed(peer, fx, now)
  if (peer.config.role !== 'observer') maybeBeat(peer, fx, now)
  return fx
}

export { HEALTH_RETRY_MS } from './model-health'
export { taskId }
