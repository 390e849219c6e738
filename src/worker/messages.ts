/**
 * The typed bridge between a tab's main thread (libp2p node, plan store,
 * UI) and its role worker (role core, LLM calls). Everything crossing it is
 * structured-cloneable plain data.
 */
import type { Capability, ModelConfig } from '../llm/types'
import type { PlanRecord, WireRecord } from '../protocol/records'
import type { PlanTree } from '../plan/tree'
import type { PeerInput } from '../roles/index'
import type { ModelVerdict, PeerConfig } from '../roles/types'
import type { BudgetLimits } from '../runtime/budget'
import type { CallEntry } from '../runtime/call-log'
import type { LiveText } from '../runtime/live-text'
import type { McpSettings } from '../runtime/mcp/types'
import type { ActivityEvent, RoleActivity, ToolConsent } from '../runtime/types'

export type ToWorker =
  | {
      type: 'start'
      config: PeerConfig
      records: PlanRecord[]
      model: ModelConfig
      budget: BudgetLimits
      authors: string[] | null
      tools: ToolConsent
      /** executors: MCP servers (URLs) and consent per tool, as this browser keeps them */
      mcp?: McpSettings
      /** this tab's member: a goal by any of its person's tabs is their own */
      member?: string
    }
  | { type: 'deliver'; inputs: PeerInput[] }
  | { type: 'set-model'; model: ModelConfig }
  /** the page's check of `model` answered (roles/model-health.ts) */
  | { type: 'model-checked'; model: ModelConfig; verdict: ModelVerdict }
  | { type: 'set-budget'; limits: BudgetLimits }
  | { type: 'set-authors'; authors: string[] | null }
  | { type: 'set-capabilities'; capabilities: Capability[] }
  | { type: 'set-tools'; consent: ToolConsent }
  | { type: 'set-mcp'; settings: McpSettings }
  /** the person's answer to another member's tool call waiting for approval */
  | { type: 'answer-tool'; id: string; allow: boolean }
  | { type: 'archive'; ids: string[] }
  | { type: 'stop' }

export type FromWorker =
  | { type: 'publish'; records: WireRecord[] }
  /** the core asks for an anti-entropy round with every linked peer (Effects.sync) */
  | { type: 'sync' }
  | { type: 'tree'; tree: PlanTree }
  | { type: 'activity'; activity: RoleActivity }
  /** one activity entry, as it was recorded */
  | { type: 'entry'; entry: ActivityEvent }
  | { type: 'log'; message: string }
  /** a finished LLM call, for the tab's call log (without the API key) */
  | { type: 'call'; call: CallEntry }
  /** the text of running execute and roll-up calls so far (throttled, live-text.ts) */
  | { type: 'live'; live: LiveText[] }
