/**
 * Types of the pure peer core: what goes in, what comes out.
 *
 * A peer is one role plus the plan state every peer keeps. Its core is a
 * deterministic function of (state, inputs, now) → effects: no I/O, no
 * clock, no randomness. The adapters around it (gossip, sync, IndexedDB,
 * timers, the LLM) turn effects into I/O and I/O back into inputs.
 */
import type { Capability } from '../protocol/capabilities'
import type { ToolGroup } from '../protocol/tool-groups'
import type { Consent } from './consent'
import type { LlmErrorKind, LlmOutcome, LlmTask } from './llm-contract'
import type { PlanRecord, Presence, Role, WireRecord } from '../protocol/records'

export interface PeerConfig {
  peerId: string
  room: string
  role: Role
  /** executors: what they can do */
  capabilities: Capability[]
  /**
   * executors: the tool groups their person turned on (MCP servers, since
   * protocol version 8), announced in presence; a leaf needing a group goes
   * only to an executor that announces it. Default none.
   */
  tools?: ToolGroup[]
  /** most LLM calls (and claimed tasks) this peer runs at once */
  capacity: number
  /** shown to others in presence, e.g. "offline-v1" or "anthropic/claude-…" */
  model: string
  offline: boolean
  /**
   * When true, the warm-up (see WARMUP_MS) starts only once this peer has
   * reached the swarm, that is on the 'joined' command, sent by the runtime
   * after its first sync. A tab that reloads mid-task would otherwise resume
   * work that its peers already finished before it has heard of it.
   * Default false: warm-up starts with the peer (the simulator's peers).
   */
  joinFirst?: boolean
  /** whose goals this peer spends its key on, and what its budget has paused (default: anyone's, nothing) */
  consent?: Consent
  /**
   * Executors: its person turned running code on but its model cannot run
   * it (the server refuses tools). It then writes code leaves that no live
   * executor can run, as code written, not run (executor.ts claimAs), rather
   * than leave them waiting for a capability nobody brings. Default false:
   * an executor whose person left code off never takes a code leaf.
   */
  writesUnrunCode?: boolean
  /**
   * The room's owner (its member id, since version 7; `room` is then the
   * stable room id): the plan counts only records of PeerIds bound to
   * admitted members, and goal limits count per member. Default none: every
   * record counts, each PeerId an author (the simulator's peers).
   */
  owner?: string
}

/**
 * What a peer knows of the model it uses now (model-health.ts); reset when
 * the model changes.
 */
export interface ModelStatus {
  /**
   * 'unknown': nothing since it was chosen; 'works': the latest check or call
   * of it succeeded; 'broken': the latest check or call showed it cannot work
   * (key rejected, model or address unknown, nothing answers), so the role
   * takes no new work; 'failing': the latest call failed in a way that may
   * pass (a rate limit, replies that never validated, a server error)
   */
  state: 'unknown' | 'works' | 'broken' | 'failing'
  /** what said so last: a check of the model, or a call made for a task */
  by: 'check' | 'call' | null
  /** what went wrong, in words ('broken' and 'failing') */
  error: string | null
  kind: LlmErrorKind | null
}

/** What a check of the model in use found (the tab's check, the agent's). */
export type ModelVerdict = { ok: true } | { ok: false; error: string; kind: LlmErrorKind }

/** Settings a person changes while the role runs. (Goals and cancels are plain records: see newGoal.) */
export type Command =
  | {
      type: 'set-capabilities'
      capabilities: Capability[]
      writesUnrunCode?: boolean
      /** the tool groups to announce (absent: none) */
      tools?: ToolGroup[]
    }
  /** a new model (or key): try again at once, including work this peer failed with the old one */
  | { type: 'set-model'; model: string; offline: boolean }
  /** this peer has synced with the swarm (or found nobody to sync with): start warming up */
  | { type: 'joined' }
  /** the person's goal filter or the budget changed: new work follows it, work in flight finishes */
  | { type: 'set-consent'; consent: Consent }
  /** a check of the model in use answered (model-health.ts): its verdict holds until a call says otherwise */
  | { type: 'model-checked'; verdict: ModelVerdict }

export type PeerInput =
  /** a validated plan record: from gossip, sync, storage, or this peer itself */
  | { type: 'record'; record: PlanRecord }
  /** a validated presence beat from another peer */
  | { type: 'presence'; presence: Presence }
  /** an LLM call this peer asked for has finished (ok or not) */
  | { type: 'llm'; requestId: string; outcome: LlmOutcome }
  | { type: 'command'; command: Command }
  /** time passed (timers in background tabs fire late: nothing may rely on punctuality) */
  | { type: 'tick' }
  /**
   * the anti-entropy round this peer asked for (Effects.sync) has ended; the
   * records it brought were delivered before this input. `answered`: at
   * least one neighbour answered it (absent: nobody did, e.g. no links)
   */
  | { type: 'synced'; answered?: boolean }

export interface LlmRequest {
  id: string
  task: LlmTask
}

/** What happened, for the UI's activity list and the simulator's counters. */
export type PeerEvent =
  | { type: 'claimed'; task: string; epoch: number; designated: boolean }
  | { type: 'llm-started'; request: string; kind: LlmTask['kind'] }
  | { type: 'llm-finished'; request: string; kind: LlmTask['kind'] | 'decide'; ok: boolean }
  /** work finished but not published (lost the task meanwhile): wasted */
  | { type: 'output-dropped'; request: string; kind: LlmTask['kind'] | 'decide'; why: string }
  | { type: 'llm-aborted'; request: string; kind: LlmTask['kind'] | 'decide'; why: string }
  /** this peer was away longer than a lease: it waits for news from its neighbours before it works (lapse.ts) */
  | { type: 'was-away'; tasks: number; awayMs: number }
  /** broken: the model is known not to work; the role takes no new work until it does (model-health.ts) */
  | { type: 'health'; healthy: boolean; error?: string; broken?: boolean }
  /** a record this peer made failed the checks every receiver applies: not kept, not published */
  | { type: 'invalid-record'; kind: WireRecord['kind']; reason: string }
  /** a steer, verdict or redo by someone other than the goal's author: it counts for nothing */
  | { type: 'steering-ignored'; kind: WireRecord['kind']; from: string }

export interface Effects {
  /** records to sign and publish; plan records are already in this peer's plan */
  publish: WireRecord[]
  startLlm: LlmRequest[]
  abortLlm: string[]
  events: PeerEvent[]
  /**
   * run an anti-entropy round with every linked peer now, then deliver
   * { type: 'synced' }: a contested claimant checks with its neighbours
   * before it starts (see claims.ts)
   */
  sync: boolean
}

export function emptyEffects(): Effects {
  return { publish: [], startLlm: [], abortLlm: [], events: [], sync: false }
}
