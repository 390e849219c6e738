/**
 * The peer runtime: one peer of the swarm, put together from the network
 * node, the plan store, the role core and the LLM layer. This is what the UI
 * (src/ui) and the headless agent (src/cli) use; they never touch libp2p,
 * IndexedDB or the role core directly.
 */
import type { Capability, LlmErrorKind, LlmTaskKind, ModelConfig } from '../llm/types'
import type { ModelStatus, ModelVerdict } from '../roles/types'
import type { ConnectionSummary, DirectCause, PeerLink, Relaying } from '../net/types'
import type { ApprovalMode, PlanRecord, Role } from '../protocol/records'
import type { PlanTree } from '../plan/tree'
import type { RoomKey } from '../protocol/room-key'
import type { BudgetDecision, BudgetLimits } from './budget'
import type { CallEntry } from './call-log'
import type { LiveText } from './live-text'
import type { MemberInit, PersonInvite } from './members'
import type { MembersView, MemberView, Removed } from './members-view'
import type { McpSettings, McpStatus } from './mcp/types'
import type { ToolGroup } from '../protocol/tool-groups'

export type { MemberInit, PersonInvite, MembersView, MemberView, Removed }

export type { McpSettings, McpStatus }

export type {
  ConnectionSummary,
  DirectCause,
  Relaying,
  PeerLink,
  PlanTree,
  Role,
  Capability,
  ModelConfig,
  ModelStatus,
  ModelVerdict,
  CallEntry,
  LiveText,
}

/** One LLM call or claimed task the role is busy with right now. */
export interface WorkItem {
  id: string
  /** the call's kind; 'decide' for a decide task held (it makes no call) */
  kind: LlmTaskKind | 'decide'
  /** a short human description, e.g. "execute: Book flights" */
  label: string
  /** local ms timestamp the work started (or the claim was made) */
  since: number
  /** false while a claim waits out its window */
  started: boolean
}

/** Something the role did, for its activity list. */
/** One thing the role did or met, when it happened (RuntimeEvents.entry: each once, as it happens). */
export interface ActivityEvent {
  at: number
  text: string
  tone: 'info' | 'good' | 'warn' | 'bad'
}

/** An entry of the activity list: repeats in a row are one entry, with the latest time. */
export interface ActivityEntry extends ActivityEvent {
  /** how many times in a row this happened (1 when once) */
  count: number
}

/** Another peer of the room, as its presence beats describe it (observers send none). */
export interface SwarmMember {
  peerId: string
  role: Role
  model: string
  offline: boolean
  capabilities: Capability[]
  /** the tool groups it announces (names and annotations only, issue 57); absent or empty: none */
  tools?: ToolGroup[]
  healthy: boolean
  load: number
  capacity: number
  /** the tasks its last beat holds (leases): a claimed leaf in it is being written now */
  holding: string[]
  /** ms since its last beat reached this peer; members silent for long are dropped */
  lastSeenMs: number
}

export interface RoleActivity {
  role: Role
  capabilities: Capability[]
  /** the model this role uses, e.g. "offline-v1" or "anthropic/claude-…" */
  model: string
  offline: boolean
  /** takes new work (its beats say healthy): false while its model is broken, rate-limited or its budget paused it */
  healthy: boolean
  /** the last LLM error, human-readable (bad key, unreachable, rate limited…) */
  lastError: string | null
  lastErrorKind: LlmErrorKind | null
  /**
   * what is known of the model in use, reset when it changes: the check's
   * verdict until a call says otherwise (roles/model-health.ts)
   */
  modelStatus: ModelStatus
  work: WorkItem[]
  /** newest first, bounded; a repeated entry is counted, not repeated */
  recent: ActivityEntry[]
  /** the other live peers of the room, by their presence beats */
  swarm: SwarmMember[]
  llm: {
    calls: Record<LlmTaskKind, number>
    inputTokens: number
    outputTokens: number
    /** of the priced calls only; see unpricedCalls */
    costUsd: number
    /** calls that spent tokens of a model with no known price: their cost is unknown (never shown as $0) */
    unpricedCalls: number
    /** calls that failed (a failure that spent no token costs nothing, priced or not) */
    failedCalls: number
  }
  /** this tab's consent and budget (absent before the core reported) */
  budget?: BudgetStatus
  /** executors: the tool consent and what it lets this executor offer (absent before the core reported) */
  tools?: ToolStatus
}

/**
 * An executor's tools, for "Run code: on/off" and for saying why a
 * capability is not offered. `capabilities` (above) is what it advertises.
 */
export interface ToolStatus {
  consent: ToolConsent
  /** the capabilities its person chose (setCapabilities) */
  chosen: Capability[]
  /** why each chosen capability is not advertised, e.g. "running code is off" */
  withheld: Partial<Record<Capability, string>>
  /** what the current model does with tools (false after it rejected them) */
  model: { code: boolean; search: boolean }
  /** its person's MCP servers, their tools and consent, and calls waiting for approval (issue 57) */
  mcp?: McpStatus
}

/** What the budget and the goal filter are doing, for the UI's notice and settings. */
export interface BudgetStatus {
  limits: BudgetLimits
  decision: BudgetDecision
  /** the current model has a known price (or is offline): cost caps can be enforced */
  modelPriced: boolean
  /** whose goals this role works on: null anyone in the room, else how many authors it accepts */
  authors: number | null
}

/**
 * What a person lets this tab's (or agent's) executor do with tools, each
 * off by default (issue 24). An executor advertises can_run_code only with
 * runCode on and a model that calls tools, and can_query_api only with
 * webSearch on and a provider with server-side search (Anthropic, OpenAI),
 * or with knowledgeAnswers on (its results then say they were not checked).
 */
export interface ToolConsent {
  /** "Run code in this tab": model-written JavaScript in this peer's sandbox */
  runCode: boolean
  /** "Search the web with my key": the provider's own web search, priced per call */
  webSearch: boolean
  /** "Answer live questions from the model's knowledge", marked as unchecked */
  knowledgeAnswers: boolean
}

export const NO_TOOLS: ToolConsent = { runCode: false, webSearch: false, knowledgeAnswers: false }

export interface RuntimeInit {
  /** the room, from its invite (src/protocol/invite.ts): its secret never leaves this peer */
  room: RoomKey
  /**
   * the room's stable id, which records carry (version 7: from its name and
   * owner, so a plan survives epochs); default the room key's id
   */
  roomId?: string
  /**
   * this peer's member (a version-7 invite: the room's owner and this
   * person's seed); records then carry the stable room id, and the peer
   * follows the room's epochs. Absent: a bare peer (tests, benchmarks).
   */
  member?: MemberInit
  role: Role
  /** executors: what they can do (default: all three) */
  capabilities?: Capability[]
  /** most LLM calls at once (default 4) */
  capacity?: number
  /** the model this peer's role uses (default: the built-in offline model) */
  model?: ModelConfig
  /** relay multiaddrs; browsers default to those advertised by the page's origin (/relay.json) */
  relays?: string[]
  /** caps on what this role spends (default DEFAULT_BUDGET, src/runtime/budget.ts) */
  budget?: BudgetLimits
  /** whose goals this role spends its key on (default: anyone in the room) */
  goalsFrom?: GoalSource
  /** executors: what they may do with tools (default NO_TOOLS: nothing) */
  tools?: ToolConsent
  /** executors in a tab: its person's MCP servers (URLs) and consent per tool (default none) */
  mcp?: McpSettings
}

/**
 * Whose goals a role works on: anyone in the room, or only goals written by
 * this browser's tabs (a headless agent: by itself).
 */
export type GoalSource = 'anyone' | 'this-browser'

export interface RuntimeEvents {
  /** the plan tree changed (throttled) */
  tree: PlanTree
  /** the role's activity changed (throttled) */
  activity: RoleActivity
  /**
   * the role did or met something (a claim, a result, a wait for a rate
   * limit): each once, as it happens, in order. The activity's `recent`
   * list merges repeats for the screen; a terminal prints these.
   */
  entry: ActivityEvent
  /** links changed */
  connections: ConnectionSummary
  /** this peer finished an LLM call (it is in calls() now) */
  call: CallEntry
  /** the text of this peer's running execute and roll-up calls changed (throttled) */
  live: LiveText[]
  /** the room's members changed (admitted, joined, removed; this peer moved epochs) */
  members: MembersView
}

/** Traffic of this peer at the protocol level (records, not transport frames). */
export interface TrafficStats {
  published: number
  publishedBytes: number
  /** gossip delivered to this peer (after validation, duplicates excluded) */
  received: number
  receivedBytes: number
  /** records this peer got by anti-entropy sync (and kept) */
  synced: number
  syncedBytes: number
}

export interface ArchiveResult {
  goals: number
  records: number
  /** JSON (format murmuration-archive/1): the goals' trees and their signed records */
  json: string | null
}

export interface PeerRuntime {
  readonly peerId: string
  /** the room's name, as people see it */
  readonly room: string
  /** the room's public id (derived from its secret): what the relay and the wire see */
  readonly roomId: string
  readonly role: Role
  tree(): PlanTree
  activity(): RoleActivity
  connections(): ConnectionSummary
  traffic(): TrafficStats
  /** every plan record this peer holds (decoded copies; for inspection and tests) */
  records(): PlanRecord[]
  /** this peer's own LLM calls, newest first, bounded (call-log.ts); never gossiped */
  calls(): CallEntry[]
  /** the text of this peer's running execute and roll-up calls so far (a tab's; empty for a headless agent) */
  live(): LiveText[]
  on<E extends keyof RuntimeEvents>(event: E, cb: (detail: RuntimeEvents[E]) => void): () => void
  /**
   * publishes a new root goal (any role, an observer too) and returns its id;
   * `approve`: which of its splits wait for this tab's approval (default none)
   */
  submitGoal(text: string, maxDepth?: number, approve?: ApprovalMode): Promise<string>
  cancelGoal(goalId: string, reason?: string): Promise<void>
  /** steers a goal this tab submitted (issue 27): pause, approval, veto, redo */
  steerGoal(action: SteerAction): Promise<void>
  /** executors: the capabilities its person offers; it advertises those its tools allow */
  setCapabilities(capabilities: Capability[]): void
  /** executors: new tool consent, at once (capabilities re-advertised in the next presence beat) */
  setTools(consent: ToolConsent): void
  /** executors: their person's MCP servers and consent per tool, from now on (issue 57) */
  setMcp(settings: McpSettings): void
  /** executors: their person's answer to another member's tool call waiting for approval */
  answerToolCall(id: string, allow: boolean): void
  /** changes this role's model (and key) from now on; the key stays in this process */
  setModel(model: ModelConfig): void
  /**
   * what a check of `model` found (the tab's model check): its verdict holds
   * until a call says otherwise, and a broken model takes no new work
   * (roles/model-health.ts). Ignored unless `model` is the one in use.
   */
  modelChecked(model: ModelConfig, verdict: ModelVerdict): void
  /** new caps (raising one resumes what it paused) */
  setBudget(limits: BudgetLimits): void
  /** whose goals this role works on from now on (work in flight finishes) */
  setGoalsFrom(source: GoalSource): void
  /** the final plan (or the plan so far) of one root goal */
  exportPlan(goalId: string, format: 'markdown' | 'json'): string
  /**
   * Archives every settled root goal (done, failed, cancelled): returns their
   * export (null when there is nothing to archive), then drops their records
   * from this peer's memory and storage for good (src/runtime/archive.ts).
   */
  archiveFinished(): Promise<ArchiveResult>
  /**
   * A sync round with every peer linked now; resolves with how many
   * answered (0: none linked, or none answered). After it, each of them
   * holds every record this peer held when the round began (an agent's
   * one-off action waits for one, cli/agent-members.ts).
   */
  syncRound(): Promise<number>
  /** the room's members as people see them; null for a peer without a member */
  members(): MembersView | null
  /** the current epoch's key: what this peer's links carry (its secret stays in this browser) */
  roomKey(): RoomKey
  /** the room's owner and this person's seed (the link's `owner` and `me`); null without a member */
  member(): { owner: string; seed: Uint8Array } | null
  /** owners: the people this browser (or agent) invited, to show their links again */
  invites(): PersonInvite[]
  /** owners: admits a person (name default "Guest N"; a co-owner may remove people and reset links) and returns their invite */
  invitePerson(name?: string, coOwner?: boolean): Promise<PersonInvite>
  /** owners: makes an admitted member a co-owner (for good: only removing them undoes it) */
  makeCoOwner(member: string): Promise<void>
  /** owners: removes a member (the room moves to a new epoch without them) */
  removeMember(member: string): Promise<void>
  /** owners: resets a person's link (their old member removed, a new one admitted): the new invite */
  resetInvite(member: string): Promise<PersonInvite>
  stop(): Promise<void>
}

/** What the author of a goal may do to it (docs/PROTOCOL.md §5.12). */
export type SteerAction =
  /** pause or resume the root goal, and which splits wait for approval */
  | { kind: 'settings'; goal: string; paused: boolean; approve: ApprovalMode }
  /** approve or veto the split accepted for `goal` (a veto sends back `retire` too) */
  | {
      kind: 'verdict'
      goal: string
      proposal: string
      approve: boolean
      note?: string
      retire?: string[]
    }
  /** send the leaf of execute task `task` back with a note */
  | { kind: 'redo'; task: string; note: string }
