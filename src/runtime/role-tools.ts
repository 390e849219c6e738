/**
 * An executor's tools as its driver (driver.ts) holds them: the capabilities
 * its person chose, the tools they let it use (or the offline model's own,
 * tools.ts), the code sandbox, made at the first program a model wants
 * to run and closed once running code is no longer allowed, and its
 * person's MCP servers (mcp/hub.ts, issue 57): the tool groups it announces
 * and lends to a leaf that needs one, with the goal's owner fixed here.
 */
import type { Capability } from '../protocol/capabilities'
import type { ToolGroup } from '../protocol/tool-groups'
import type { LlmTask } from '../llm/types'
import type { LoopSpend, TaskTools } from '../llm/tools'
import type { CodeSandbox } from '../sandbox/types'
import { derived } from '../roles/room-view'
import type { PeerState } from '../roles/peer'
import { rootOfWork } from '../roles/consent'
import type { GoalContext, McpHub } from './mcp/hub'
import type { McpSettings } from './mcp/types'
import {
  effectiveCapabilities,
  toolsInUse,
  type EffectiveCapabilities,
  type ModelTools,
} from './tools'
import { NO_TOOLS, type ToolConsent, type ToolStatus } from './types'

export interface RoleToolsInit {
  /** only executors use tools; any other role offers no capability */
  executor: boolean
  /** the capabilities its person chose */
  chosen: readonly Capability[]
  /** what its person lets it do with tools (default NO_TOOLS) */
  consent?: ToolConsent
  /** makes the sandbox; absent, code cannot run here and can_run_code is never offered */
  createSandbox?: () => CodeSandbox | Promise<CodeSandbox>
  /** the model now in use: is it the offline one, and what can it do with tools */
  model: () => { offline: boolean; tools: ModelTools }
  /** its person's MCP servers (absent: none); closed with these tools */
  mcp?: McpHub
}

/** What the core should advertise: the capabilities, whether it writes code nobody runs, its tool groups. */
export interface Advertised {
  capabilities: Capability[]
  writesUnrunCode: boolean
  tools: ToolGroup[]
}

export class RoleTools {
  private chosen: Capability[]
  private consent: ToolConsent
  private sandbox: Promise<CodeSandbox> | null = null

  constructor(private readonly init: RoleToolsInit) {
    this.chosen = [...init.chosen]
    this.consent = { ...(init.consent ?? NO_TOOLS) }
  }

  /** The capabilities its person offers now. */
  choose(capabilities: readonly Capability[]): void {
    this.chosen = [...capabilities]
  }

  /** New consent; a sandbox it no longer allows is closed. */
  allow(consent: ToolConsent): void {
    this.consent = { ...consent }
    this.closeUnlessAllowed()
  }

  /** After a change of model: the offline model brings its own tools, a real one the consent. */
  closeUnlessAllowed(): void {
    if (!this.inUse().runCode) this.closeSandbox()
  }

  /** The consent in force: the offline model's own tools, or what the person ticked. */
  inUse(): ToolConsent {
    return toolsInUse(this.consent, this.init.model().offline)
  }

  /** What the executor can offer of what was chosen, and why the rest is withheld. */
  effective(): EffectiveCapabilities {
    if (!this.init.executor) return { capabilities: [], withheld: {} }
    const model = this.init.model().tools
    const support = { ...model, code: model.code && this.init.createSandbox !== undefined }
    return effectiveCapabilities(this.chosen, this.inUse(), support)
  }

  advertised(): Advertised {
    const { capabilities } = this.effective()
    // code on, but the model (or this peer) cannot run it: write code nobody runs (claimAs)
    const writesUnrunCode =
      this.init.executor &&
      this.chosen.includes('can_run_code') &&
      this.inUse().runCode &&
      !capabilities.includes('can_run_code')
    const tools = this.init.executor ? (this.init.mcp?.offered() ?? []) : []
    return { capabilities, writesUnrunCode, tools }
  }

  /**
   * The tools an execute call may use, by consent (the LLM layer picks by the
   * leaf's capability); `budget` ends a tool loop that would reach a cap.
   */
  forTask(
    task: LlmTask,
    budget: (spent: LoopSpend) => string | null,
    goal: GoalContext,
  ): TaskTools | undefined {
    if (task.kind !== 'execute') return undefined
    const { runCode, webSearch, knowledgeAnswers } = this.inUse()
    const create = this.init.createSandbox
    const mcp = this.init.executor ? this.init.mcp : undefined
    return {
      ...(runCode && create ? { sandbox: () => (this.sandbox ??= Promise.resolve(create())) } : {}),
      search: webSearch,
      knowledge: knowledgeAnswers,
      budget,
      // whose goal it is comes from the plan, here: the model cannot change it
      ...(mcp ? { toolbox: (group: string) => mcp.toolbox(group, goal) } : {}),
    }
  }

  /** A tab's MCP settings from now on (its hub connects and disconnects). */
  setMcp(settings: McpSettings): void {
    const hub = this.init.mcp
    if (!hub) return
    hub.setConsent(settings.consent)
    void hub.setServers(settings.servers)
  }

  /** Its person's answer to a call waiting for their approval. */
  answerToolCall(id: string, allow: boolean): void {
    this.init.mcp?.answer(id, allow)
  }

  /** What the role's page shows of its tools: "Run code: on/off", and why a capability is withheld. */
  status(): ToolStatus {
    return {
      consent: this.inUse(),
      chosen: [...this.chosen],
      withheld: this.effective().withheld,
      model: this.init.model().tools,
      ...(this.init.executor && this.init.mcp ? { mcp: this.init.mcp.status() } : {}),
    }
  }

  /** Ends the sandbox and every MCP session: the role stops. */
  close(): void {
    void this.init.mcp?.close()
    this.closeSandbox()
  }

  private closeSandbox(): void {
    const sandbox = this.sandbox
    this.sandbox = null
    sandbox?.then(
      (box) => box.close(),
      () => {},
    )
  }
}

/**
 * Whose goal a call of `peer`'s work `id` is for, from the signed plan: its
 * root goal, and whether that goal's author is this peer's person (any of
 * their tabs or agents; without a member, this very peer).
 */
export function goalContext(peer: PeerState, id: string, member?: string): GoalContext {
  const work = peer.work.get(id)
  const root = work ? rootOfWork(peer, work) : null
  const goal = root === null ? undefined : derived(peer).goals.get(root)
  if (!goal) return { goal: root, goalText: '(a goal no longer in the plan)', ownGoal: false }
  const ownGoal =
    goal.createdBy === peer.config.peerId ||
    (member !== undefined && goal.createdByMember === member)
  return { goal: goal.id, goalText: goal.text, ownGoal }
}
