/**
 * Which tools an execute call gets (issue 24, issue 57), and what a
 * validated execute value carries of them: the leaf's capability and tool
 * group pick them, the person's consent allows them, the model must do them.
 */
import { MAX_OUTPUT } from '../protocol/limits'
import type { Step } from '../protocol/steps'
import type { GenerateResult } from './provider'
import type { TaskTools, ToolRequest, ToolSupport } from './tools'
import type { Capability, LlmOutputs, LlmTask, LlmTaskKind } from './types'

/** Starts a deliverable answered from the model's knowledge where a live source was wanted. */
export const KNOWLEDGE_NOTE =
  '> Not checked live: answered from the model’s knowledge, without a web search. Verify before relying on it.\n\n'

export interface ToolPlan {
  /** the tools to give the model, if any */
  request?: ToolRequest
  /** answer from knowledge, marked as unchecked (a KnowledgeStep) */
  knowledge: boolean
  /** the leaf needs a tool group this executor cannot use now: why (the call is not made) */
  missing?: string
}

/**
 * Which tools an execute call gets: the leaf's capability picks them, the
 * person's consent allows them, the model must do them. A code leaf gets
 * run_javascript; a live-data leaf gets the provider's web search, else
 * (if allowed) an answer from knowledge that says so. Everything else,
 * and every other task kind, is text-only as before.
 */
export function toolPlan(
  task: LlmTask,
  tools: TaskTools | undefined,
  model: ToolSupport,
): ToolPlan {
  if (task.kind !== 'execute') return { knowledge: false }
  if (task.tool !== undefined) return toolboxPlan(task.tool, task.capability, tools, model)
  if (!tools) return { knowledge: false }
  const budget = tools.budget ? { budget: tools.budget } : {}
  if (task.capability === 'can_run_code' && tools.sandbox && model.code) {
    return { request: { sandbox: tools.sandbox, search: false, ...budget }, knowledge: false }
  }
  if (task.capability === 'can_query_api') {
    if (tools.search && model.search)
      return { request: { search: true, ...budget }, knowledge: false }
    if (tools.knowledge) return { knowledge: true }
  }
  return { knowledge: false }
}

/**
 * A leaf that needs a tool group (issue 57) gets that group's toolbox, and
 * run_javascript too when it needs code; without the toolbox (its person
 * turned the group off meanwhile) or a model that calls tools, it is not
 * answered at all: a deliverable written without the tool would claim what
 * nobody looked up.
 */
function toolboxPlan(
  group: string,
  capability: Capability,
  tools: TaskTools | undefined,
  model: ToolSupport,
): ToolPlan {
  const toolbox = tools?.toolbox?.(group)
  if (!toolbox) return { knowledge: false, missing: `the tool group ${group} is not offered here` }
  if (!model.code) return { knowledge: false, missing: 'this model or server does not call tools' }
  const sandbox = capability === 'can_run_code' && tools?.sandbox ? { sandbox: tools.sandbox } : {}
  const budget = tools?.budget ? { budget: tools.budget } : {}
  return { request: { toolbox, search: false, ...sandbox, ...budget }, knowledge: false }
}

/** The validated execute value with what ran (steps), or the knowledge mark. */
export function withSteps<K extends LlmTaskKind>(
  kind: K,
  value: LlmOutputs[K],
  plan: ToolPlan,
  result: GenerateResult,
): LlmOutputs[K] {
  if (kind !== 'execute') return value
  const { output } = value as LlmOutputs['execute']
  if (plan.knowledge) {
    const steps: Step[] = [{ type: 'knowledge' }]
    return { output: `${KNOWLEDGE_NOTE}${output}`.slice(0, MAX_OUTPUT), steps } as LlmOutputs[K]
  }
  const steps = result.steps ?? []
  return (steps.length > 0 ? { output, steps } : { output }) as LlmOutputs[K]
}
