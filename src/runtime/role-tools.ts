/**
 * An executor's tools as its driver (driver.ts) holds them: the capabilities
 * its person chose, the tools they let it use (or the offline model's own,
 * tools.ts), and the code sandbox, made at the first program a model wants
 * to run and closed once running code is no longer allowed.
 */
import type { Capability } from '../protocol/capabilities'
import type { LlmTask } from '../llm/types'
import type { LoopSpend, TaskTools } from '../llm/tools'
import type { CodeSandbox } from '../sandbox/types'
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
}

/** What the core should advertise: the capabilities, and whether it writes code nobody runs. */
export interface Advertised {
  capabilities: Capability[]
  writesUnrunCode: boolean
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
    if (!this.inUse().runCode) this.close()
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
    return { capabilities, writesUnrunCode }
  }

  /**
   * The tools an execute call may use, by consent (the LLM layer picks by the
   * leaf's capability); `budget` ends a tool loop that would reach a cap.
   */
  forTask(task: LlmTask, budget: (spent: LoopSpend) => string | null): TaskTools | undefined {
    if (task.kind !== 'execute') return undefined
    const { runCode, webSearch, knowledgeAnswers } = this.inUse()
    const create = this.init.createSandbox
    return {
      ...(runCode && create ? { sandbox: () => (this.sandbox ??= Promise.resolve(create())) } : {}),
      search: webSearch,
      knowledge: knowledgeAnswers,
      budget,
    }
  }

  /** What the role's page shows of its tools: "Run code: on/off", and why a capability is withheld. */
  status(): ToolStatus {
    return {
      consent: this.inUse(),
      chosen: [...this.chosen],
      withheld: this.effective().withheld,
      model: this.init.model().tools,
    }
  }

  close(): void {
    const sandbox = this.sandbox
    this.sandbox = null
    sandbox?.then(
      (box) => box.close(),
      () => {},
    )
  }
}
