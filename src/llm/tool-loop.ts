/**
 * The bounded tool loop of an execute call (issue 24), one for every model:
 * the real providers (ai-sdk-provider.ts) and the offline model
 * (offline-model/code-model.ts) both run through here.
 *
 * generateText with tools and `stopWhen`: the SDK calls the model, runs
 * run_javascript (our function tool) and the person's own tools (an MCP
 * server's, through the consent gate: toolbox.ts) between calls, and lets the provider
 * run its own web search server-side. The loop ends when the model answers
 * without a tool call, at MAX_TOOL_STEPS calls (the last call has tools off,
 * so it must answer), or when the budget check says a cap was reached (then
 * there is no answer, and the caller publishes a failure saying why).
 *
 * The deliverable comes back as text: the {output} JSON object the system
 * prompt asks for, or, when a model answers in plain Markdown instead, that
 * Markdown (taken as the deliverable by runLlmTask's reading). Structured output is not combined with tools because providers
 * support the pair unevenly (Anthropic's older models force a `json` tool,
 * which cannot coexist with ours); run-task.ts judges the result with the
 * execute schema as it judges every reply.
 */
import {
  generateText,
  stepCountIs,
  type LanguageModel,
  type StepResult,
  type Tool,
  type ToolSet,
} from 'ai'
import type { Step } from '../protocol/steps'
import { extractJsonObject, type JsonExtraction } from './json-extract'
import { finishAndReasoning } from './reply-repair'
import type { GenerateRequest, GenerateResult } from './provider'
import { estimateTokens } from './tokens'
import {
  MAX_TOOL_STEPS,
  RUN_JAVASCRIPT,
  runJavascriptTool,
  searchStep,
  toolInstructions,
  toSource,
  WEB_SEARCH,
  type LoopSpend,
  type ToolRequest,
} from './tools'
import { toolboxTools, type ToolCallReport } from './toolbox'

export interface ToolLoopInit {
  model: LanguageModel
  /** the configured model id, when the response does not name one */
  modelId: string
  request: GenerateRequest
  tools: ToolRequest
  /** the provider's server-side web search tool, when the request may search */
  webSearch?: Tool
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * The deliverable's {output} object in the final reply, if it has one. A
 * reply in plain Markdown is the deliverable too: runLlmTask's reading
 * (reply-reader.ts) takes it as such, and notes that it did.
 */
export function finalAnswer(text: string): JsonExtraction {
  if (text.trim() === '') return { ok: false, error: 'the final reply was empty' }
  const found = extractJsonObject(text)
  if (found.ok && isObj(found.value) && typeof found.value.output === 'string') return found
  return { ok: false, error: 'no {"output": ...} object in the final reply' }
}

/** What the steps so far spent: every step's tokens, and each search the provider ran. */
function spentSoFar(steps: readonly StepResult<ToolSet>[]): LoopSpend {
  const spent: LoopSpend = { inputTokens: 0, outputTokens: 0, webSearches: 0 }
  for (const step of steps) {
    spent.inputTokens += step.usage.inputTokens ?? 0
    spent.outputTokens += step.usage.outputTokens ?? 0
    spent.webSearches += step.toolCalls.filter((call) => call.toolName === WEB_SEARCH).length
  }
  return spent
}

/**
 * The searches of one model call, as steps. Anthropic's result is a list of
 * {url, title}; OpenAI's names the query in its action and may list bare
 * URLs, with titles in the answer's citations (the step's sources).
 */
export function searchSteps(step: StepResult<ToolSet>): Step[] {
  const out: Step[] = []
  const cited = step.sources.flatMap((source) =>
    source.sourceType === 'url' ? [toSource(source.url, source.title)] : [],
  )
  for (const call of step.toolCalls) {
    if (call.toolName !== WEB_SEARCH) continue
    const result = step.toolResults.find((r) => r.toolCallId === call.toolCallId)
    const output: unknown = result?.output
    const input: unknown = call.input
    const action = isObj(output) && isObj(output.action) ? output.action : undefined
    const queries = Array.isArray(action?.queries) ? action.queries : []
    const query =
      (isObj(input) && typeof input.query === 'string' && input.query) ||
      (typeof action?.query === 'string' && action.query) ||
      (typeof queries[0] === 'string' && queries[0]) ||
      ''
    const listed = Array.isArray(output)
      ? output
      : isObj(output) && Array.isArray(output.sources)
        ? output.sources
        : []
    const titles = new Map(cited.flatMap((s) => (s ? [[s.url, s.title] as const] : [])))
    const sources = listed.flatMap((item: unknown) =>
      isObj(item) ? [toSource(item.url, item.title ?? titles.get(String(item.url)))] : [],
    )
    const found = sources.filter((s) => s !== null)
    const step1 = searchStep(query, found.length > 0 ? found : cited.filter((s) => s !== null))
    if (step1) out.push(step1)
  }
  return out
}

export async function runToolLoop(init: ToolLoopInit): Promise<GenerateResult> {
  const { request, tools } = init
  const steps: Step[] = []
  const toolCalls: ToolCallReport[] = []
  const toolset: Record<string, Tool> = {}
  // the person's own tools first: a server's tool named like ours does not replace ours
  if (tools.toolbox) Object.assign(toolset, toolboxTools(tools.toolbox, steps, toolCalls))
  if (tools.sandbox) toolset[RUN_JAVASCRIPT] = runJavascriptTool(tools.sandbox, steps)
  if (init.webSearch) toolset[WEB_SEARCH] = init.webSearch
  const system = `${request.system}\n${toolInstructions(tools)}`
  request.onSend?.(system)
  let stopped: string | null = null
  const result = await generateText({
    model: init.model,
    system,
    prompt: request.prompt,
    maxRetries: 0,
    abortSignal: request.signal,
    maxOutputTokens: request.maxOutputTokens,
    tools: toolset,
    // the last call may not use tools: the loop always ends with an answer, unless the budget ends it
    prepareStep: ({ stepNumber }) =>
      stepNumber >= MAX_TOOL_STEPS - 1 ? { toolChoice: 'none' as const } : undefined,
    stopWhen: [
      stepCountIs(MAX_TOOL_STEPS),
      ({ steps: done }) => {
        stopped = tools.budget?.(spentSoFar(done)) ?? null
        return stopped !== null
      },
    ],
    onStepFinish: (step) => {
      steps.push(...searchSteps(step))
    },
  })
  const spent = spentSoFar(result.steps)
  const text = result.text
  const answered = result.finishReason !== 'tool-calls'
  return {
    json: answered
      ? finalAnswer(text)
      : {
          ok: false,
          error: `the loop ended before the model answered (${stopped ?? 'step limit'})`,
        },
    text,
    inputTokens: result.totalUsage.inputTokens ?? estimateTokens(system + request.prompt),
    outputTokens: result.totalUsage.outputTokens ?? estimateTokens(text),
    model: result.response.modelId || init.modelId,
    ...finishAndReasoning(result),
    steps,
    webSearches: spent.webSearches,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(stopped !== null && !answered ? { stopped } : {}),
  }
}
