/**
 * Where the role core runs, as the runtime sees it: in-process (headless
 * agents, tests, benchmarks) or in a Web Worker (tabs: worker-host.browser.ts).
 */
import type { Capability, ModelConfig, ProviderInit } from '../llm/index'
import type { CodeSandbox } from '../sandbox/types'
import type { SpendingPersistence } from './persist'
import type { PlanRecord, WireRecord } from '../protocol/records'
import type { PlanTree } from '../plan/tree'
import type { PeerInput } from '../roles/index'
import type { ModelVerdict, PeerConfig } from '../roles/types'
import type { BudgetLimits } from './budget'
import type { CallEntry } from './call-log'
import { CoreDriver } from './driver'
import type { LiveText } from './live-text'
import type { CheckModel } from './model-recheck'
import type { McpHub } from './mcp/hub'
import type { McpSettings } from './mcp/types'
import type { ActivityEvent, RoleActivity, ToolConsent } from './types'

export interface CoreHostInit {
  config: PeerConfig
  records: PlanRecord[]
  model: ModelConfig
  budget: BudgetLimits
  /** authors whose goals the role works on; null: anyone in the room */
  authors: string[] | null
  /** executors: the tool consent (config.capabilities is the person's choice, before it) */
  tools: ToolConsent
  /** executors in a tab: its person's MCP servers and consent, as that browser keeps them */
  mcpSettings?: McpSettings
  /** this peer's member (version 7): its person's own goals, for tool consent */
  member?: string
  /** records the core wants published */
  publish: (records: WireRecord[]) => void
  /** the core asks for an anti-entropy round now (see Effects.sync) */
  requestSync: () => void
  onTree: (tree: PlanTree) => void
  onActivity: (activity: RoleActivity) => void
  /** each activity entry once, as it is recorded */
  onEntry: (entry: ActivityEvent) => void
  /** a finished LLM call, for the call log (without the API key) */
  onCall: (call: CallEntry) => void
  /** the text of running execute and roll-up calls, as it arrives (live-text.ts) */
  onLive: (live: LiveText[]) => void
  log: (message: string) => void
}

export interface CoreHost {
  deliver(inputs: PeerInput[]): void
  setModel(model: ModelConfig): void
  /** a check of `model` answered (dropped unless it is the model in use) */
  modelChecked(model: ModelConfig, verdict: ModelVerdict): void
  setBudget(limits: BudgetLimits): void
  setAuthors(authors: string[] | null): void
  /** the capabilities the person offers (the core advertises those its tools allow) */
  setCapabilities(capabilities: Capability[]): void
  setTools(consent: ToolConsent): void
  /** executors: MCP servers and consent per tool, from now on (issue 57) */
  setMcp(settings: McpSettings): void
  /** executors: its person's answer to a tool call waiting for approval */
  answerToolCall(id: string, allow: boolean): void
  /** drops archived records from the core's plan (see src/plan/archive.ts) */
  archive(ids: string[]): void
  /** the latest tree and activity (a worker host answers with the last it received) */
  tree(): PlanTree
  activity(): RoleActivity
  stop(): void
}

export type StartCore = (init: CoreHostInit) => CoreHost

export interface InProcessInit {
  providerInit?: ProviderInit
  /** makes the code sandbox (a Node agent: createNodeSandbox), lazily, only when runCode is on */
  createSandbox?: () => CodeSandbox | Promise<CodeSandbox>
  /** where what the role spent is kept (an agent's data directory) */
  spending?: SpendingPersistence
  /** checks a broken model again now and then (a headless agent's start-up check; model-recheck.ts) */
  checkModel?: CheckModel
  /** executors: their person's MCP servers, already connected (an agent's --mcp); closed on stop */
  mcp?: McpHub
  /**
   * stream execute and roll-up calls and report their text as it arrives
   * (default false: nobody watches a headless agent's text)
   */
  liveText?: boolean
}

/** Run the core in this process. */
export function inProcessCore(options: InProcessInit = {}): StartCore {
  return (init) => {
    const { liveText, ...rest } = options
    const { onLive, mcpSettings, ...core } = init
    const driver = new CoreDriver({ ...core, ...rest, ...(liveText ? { onLive } : {}) })
    if (mcpSettings) driver.setMcp(mcpSettings)
    return {
      deliver: (inputs) => driver.deliver(inputs),
      setModel: (model) => driver.setModel(model),
      modelChecked: (model, verdict) => driver.modelChecked(model, verdict),
      setBudget: (limits) => driver.setBudget(limits),
      setAuthors: (authors) => driver.setAuthors(authors),
      setCapabilities: (capabilities) => driver.setCapabilities(capabilities),
      setTools: (consent) => driver.setTools(consent),
      setMcp: (settings) => driver.setMcp(settings),
      answerToolCall: (id, allow) => driver.answerToolCall(id, allow),
      archive: (ids) => driver.archive(ids),
      tree: () => driver.tree(),
      activity: () => driver.activity(),
      stop: () => driver.stop(),
    }
  }
}
