/**
 * A person's own tools (MCP servers, issue 57) on the mock LLM's wire: when
 * an execute request offers function tools other than run_javascript, the
 * "model" calls the ones its task cues (src/llm/tool-cues.ts: a tool's name
 * and its JSON arguments, in the leaf's text or its goal), all at once, and
 * once their results are in the conversation it answers quoting what they
 * REALLY returned, as tool results carry it back. Anthropic Messages and
 * OpenAI Chat Completions, as providers speak them.
 */
import { estimateTokens } from '../../src/llm/tokens'
import { toolCues, type ToolCue } from '../../src/llm/tool-cues'
import type { LlmTask } from '../../src/llm/types'
import { RUN_JAVASCRIPT, toolCallsReply } from './tools'

type Json = Record<string, unknown>
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v)

export interface FunctionToolState {
  /** the function tools offered besides run_javascript (tool_choice permitting) */
  offered: string[]
  /** the calls of those tools already answered in the conversation, in order */
  answered: { name: string; result: string }[]
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content))
    return content.map((c) => (isObj(c) && typeof c.text === 'string' ? c.text : '')).join('')
  return JSON.stringify(content ?? '')
}

export function functionToolState(api: 'anthropic' | 'openai', body: Json): FunctionToolState {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObj) : []
  const messages = Array.isArray(body.messages) ? body.messages.filter(isObj) : []
  const names = new Map<string, string>()
  const answered: { name: string; result: string }[] = []
  if (api === 'anthropic') {
    // a tool the request forces (`tool`, or `any` of them) is its structured output (the SDK's
    // `json` tool), not one to use
    const choice = isObj(body.tool_choice) ? body.tool_choice.type : undefined
    const none = choice === 'none' || choice === 'any'
    const forced = choice === 'tool' && isObj(body.tool_choice) ? body.tool_choice.name : null
    const offered = none
      ? []
      : tools.flatMap((t) =>
          typeof t.name === 'string' && !t.type && t.name !== forced ? [t.name] : [],
        )
    for (const message of messages) {
      if (!Array.isArray(message.content)) continue
      for (const block of message.content.filter(isObj)) {
        if (block.type === 'tool_use') names.set(String(block.id), String(block.name))
        if (block.type === 'tool_result') {
          const name = names.get(String(block.tool_use_id))
          if (name && name !== RUN_JAVASCRIPT)
            answered.push({ name, result: textOf(block.content) })
        }
      }
    }
    return { offered: offered.filter((n) => n !== RUN_JAVASCRIPT), answered }
  }
  const choice = body.tool_choice
  const none = choice === 'none' || choice === 'required'
  const forced = isObj(choice) && isObj(choice.function) ? choice.function.name : null
  const offered = none
    ? []
    : tools.flatMap((t) =>
        isObj(t.function) && typeof t.function.name === 'string' && t.function.name !== forced
          ? [t.function.name]
          : [],
      )
  for (const message of messages) {
    for (const call of Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObj) : [])
      if (isObj(call.function)) names.set(String(call.id), String(call.function.name))
    if (message.role === 'tool') {
      const name = names.get(String(message.tool_call_id))
      if (name && name !== RUN_JAVASCRIPT) answered.push({ name, result: textOf(message.content) })
    }
  }
  return { offered: offered.filter((n) => n !== RUN_JAVASCRIPT), answered }
}

/** The calls an execute task cues among the offered tools. */
export function cuedCalls(
  task: Extract<LlmTask, { kind: 'execute' }>,
  offered: readonly string[],
): ToolCue[] {
  return toolCues([task.task, ...task.path].join('\n'), offered)
}

/** A reply that calls every cued tool at once, in the api's wire format. */
export function functionCallsReply(
  api: 'anthropic' | 'openai',
  model: string,
  calls: readonly ToolCue[],
  inputTokens: number,
): Json {
  const outputTokens = estimateTokens(JSON.stringify(calls))
  const lead = 'Let me look that up with your tools.'
  return toolCallsReply(api, model, calls, lead, inputTokens, outputTokens)
}

/** The deliverable after the tools answered: the task's answer, then what each really returned. */
export function answerWithToolResults(
  output: string,
  answered: readonly { name: string; result: string }[],
): string {
  const sections = answered.map(({ name, result }) => {
    const ticks = '`'.repeat(
      Math.max(3, ...[...result.matchAll(/`+/g)].map((m) => m[0].length + 1)),
    )
    return `### What ${name} returned\n\n${ticks}text\n${result}\n${ticks}`
  })
  return [output, ...sections].join('\n\n')
}
