/**
 * What a CoreDriver (driver.ts) is made with: the peer's config and records,
 * its model, where its records and views go, what its person lets it spend
 * and do, and the tools it may lend a model. Absent fields have the defaults
 * their comments give.
 */
import type { ProviderInit } from '../llm/index'
import type { ModelConfig } from '../llm/types'
import type { CodeSandbox } from '../sandbox/types'
import type { PlanRecord, WireRecord } from '../protocol/records'
import type { PlanTree } from '../plan/tree'
import type { PeerConfig } from '../roles/types'
import type { BudgetLimits } from './budget'
import type { CallEntry } from './call-log'
import type { LiveText } from './live-text'
import type { McpHub } from './mcp/hub'
import type { SpendingPersistence } from './persist'
import type { CheckModel } from './model-recheck'
import type { ActivityEvent, RoleActivity, ToolConsent } from './types'

export interface DriverInit {
  config: PeerConfig
  /** plan records restored from storage */
  records?: PlanRecord[]
  model: ModelConfig
  providerInit?: ProviderInit
  /** records the core wants published (to sign and gossip); plan records are already applied */
  publish: (records: WireRecord[]) => void
  /**
   * the core asks for an anti-entropy round with every linked peer; the host
   * runs it and delivers { type: 'synced' } after the records it brought
   */
  requestSync?: () => void
  onTree?: (tree: PlanTree) => void
  onActivity?: (activity: RoleActivity) => void
  /** each activity entry once, as it is recorded (RuntimeEvents.entry) */
  onEntry?: (entry: ActivityEvent) => void
  /** every finished LLM call, for this peer's call log (call-log.ts); without the API key */
  onCall?: (call: CallEntry) => void
  /**
   * the text of running execute and roll-up calls as it arrives (throttled
   * snapshots, live-text.ts); given, those calls stream. Absent: no streaming
   */
  onLive?: (live: LiveText[]) => void
  /** caps on what this role spends (default DEFAULT_BUDGET) */
  budget?: BudgetLimits
  /** authors whose goals this role works on; null or absent: anyone in the room */
  authors?: readonly string[] | null
  /** executors: what their person lets them do with tools (default NO_TOOLS) */
  tools?: ToolConsent
  /**
   * Makes this peer's code sandbox, in the worker the LLM calls run in. Called
   * lazily, at the first program a model wants to run, and only with runCode
   * on. Absent: no sandbox here, so can_run_code is not offered.
   */
  createSandbox?: () => CodeSandbox | Promise<CodeSandbox>
  /**
   * executors: their person's MCP servers (issue 57); the driver announces
   * what they turned on, lends a leaf its group, and closes it on stop
   */
  mcp?: McpHub
  /** this peer's member (version 7): a goal it wrote is its person's own, for tool consent */
  member?: string
  /**
   * Where what this role spent is kept across reloads. The role takes no LLM
   * work until it is loaded, so a reload cannot slip past a cap.
   */
  spending?: SpendingPersistence
  /**
   * One cheap call of a model, for checking a broken one again every
   * MODEL_RECHECK_MS (model-recheck.ts): a headless agent's. Absent: the
   * host checks it (a tab's page) and reports with modelChecked.
   */
  checkModel?: CheckModel
  /** how often a broken model is checked again (default MODEL_RECHECK_MS) */
  recheckMs?: number
  now?: () => number
  /** the tick while busy (default TICK_MS) */
  tickMs?: number
  /** the tick once quiet (default QUIET_TICK_MS) */
  quietTickMs?: number
  log?: (message: string) => void
}
