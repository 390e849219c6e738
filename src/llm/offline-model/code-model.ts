/**
 * The offline placeholder with tools: an AI SDK language model (v3 spec)
 * for one execute task, run by the same tool loop as a real model
 * (tool-loop.ts). It calls each tool the call offers that it has a use for,
 * once (run_javascript: the leaf's program, programs.ts), then answers with
 * exactly what it called, what ran and what came back. Without a tool it
 * shows the program it would run and says it did not run.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3GenerateResult,
} from '@ai-sdk/provider'
import { estimateTokens } from '../tokens'
import { RUN_JAVASCRIPT } from '../tools'
import { answer, type ExecuteTask } from './execute'
import { programFor } from './programs'

/** One tool the model called in this conversation, with what it got back. */
export interface ToolUse {
  name: string
  input: unknown
  output: unknown
}

/** How much of a tool's output the answer quotes. */
const QUOTED_OUTPUT = 4_000

/** The leaf's program, as the offline model runs it (a redo's note first). */
export function offlineProgram(task: ExecuteTask): string {
  return programFor(task.task, task.redo?.note).code
}

/**
 * What the offline model puts into a tool it is offered, or undefined when
 * it has no use for it: run_javascript today. Any other tool it should call
 * (issue 57: a person's MCP tools, on cue) gets its input here; the loop,
 * the call and the report of what came back are already generic.
 */
function inputFor(tool: LanguageModelV3FunctionTool, task: ExecuteTask): unknown {
  return tool.name === RUN_JAVASCRIPT ? { code: offlineProgram(task) } : undefined
}

/** A code fence longer than any run of backticks in the text, so no output can close it early. */
function fence(lang: string, text: string): string[] {
  const ticks = '`'.repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map((run) => run.length + 1)))
  return [ticks + lang, text, ticks]
}
const isObj = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)
const json = (v: unknown) => JSON.stringify(v ?? null, null, 2).slice(0, QUOTED_OUTPUT)

/** One tool use as the answer reports it: a program and what it printed, or any tool's in and out. */
function useLines(use: ToolUse): string[] {
  if (use.name !== RUN_JAVASCRIPT) {
    const io = [
      ...fence('json', json(use.input)),
      'It returned:',
      ...fence('json', json(use.output)),
    ]
    return ['', `### Tool ${use.name}`, '', ...io]
  }
  const code = isObj(use.input) ? String(use.input.code) : ''
  const out = isObj(use.output) ? use.output : {}
  const exit = typeof out.exit === 'number' ? out.exit : 1
  const printed =
    String(out.stdout ?? '')
      .trim()
      .slice(0, QUOTED_OUTPUT) || '(nothing)'
  return [
    ...['', '### What ran', '', ...fence('js', code)],
    ...['', `### What it printed (exit ${exit})`, '', ...fence('text', printed)],
    ...(exit === 0 ? [] : ['', `It failed: ${String(out.error ?? `exit ${exit}`)}.`]),
  ]
}

/** The answer to a code leaf, after the tool uses it made (none: the program, not run). */
export function codeAnswer(task: ExecuteTask, uses: readonly ToolUse[]): string {
  const program = programFor(task.task, task.redo?.note)
  const runs = uses.filter((u) => u.name === RUN_JAVASCRIPT)
  const own = runs.every((u) => isObj(u.input) && u.input.code === program.code)
  const what = `a program that ${program.does}${program.computes ? ': a computation plain enough for the offline model' : ''}`
  const did = !task.redo
    ? ''
    : program.code !== programFor(task.task).code
      ? 'The program follows what the note names.'
      : 'The note names nothing this program can change, so it is the same program as before.'
  const ran =
    runs.length === 0
      ? `It would run ${what}. Not run: this call had no sandbox.`
      : own
        ? `It ran ${what}.`
        : 'It ran the program below.'
  const shown = runs.length ? [] : ['', '### The program', '', ...fence('js', program.code)]
  return answer(task, did, ran, [...shown, ...uses.flatMap(useLines)])
}

/** The tool calls in the conversation so far and their results, in order. */
function toolUses(options: LanguageModelV3CallOptions): ToolUse[] {
  const inputs = new Map<string, unknown>()
  const uses: ToolUse[] = []
  for (const message of options.prompt) {
    if (message.role !== 'assistant' && message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type === 'tool-call') inputs.set(part.toolCallId, part.input)
      if (part.type !== 'tool-result') continue
      const output = 'value' in part.output ? part.output.value : { error: part.output.type }
      uses.push({ name: part.toolName, input: inputs.get(part.toolCallId), output })
    }
  }
  return uses
}

/** A reply of the model: its content, why it stopped, and its usage estimated from the texts. */
function reply(
  content: LanguageModelV3GenerateResult['content'],
  toolCalls: boolean,
  prompt: string,
  text: string,
): LanguageModelV3GenerateResult {
  const [input, output] = [estimateTokens(prompt), estimateTokens(text)]
  return {
    content,
    finishReason: toolCalls
      ? { unified: 'tool-calls', raw: 'tool_use' }
      : { unified: 'stop', raw: 'end_turn' },
    usage: {
      inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: output, text: output, reasoning: 0 },
    },
    warnings: [],
  }
}

/** The offline model of one execute task, as an AI SDK language model. */
export function offlineCodeModel(task: ExecuteTask, modelId: string): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'offline',
    modelId,
    supportedUrls: {},
    async doGenerate(options) {
      options.abortSignal?.throwIfAborted()
      const uses = toolUses(options)
      const prompt = options.prompt.map((m) => JSON.stringify(m.content)).join('\n')
      const offered = options.toolChoice?.type === 'none' ? [] : (options.tools ?? [])
      for (const tool of offered) {
        const input =
          tool.type === 'function' && !uses.some((u) => u.name === tool.name)
            ? inputFor(tool, task)
            : undefined
        if (input === undefined) continue
        const call = {
          toolCallId: `offline-${uses.length + 1}`,
          toolName: tool.name,
          input: JSON.stringify(input),
        }
        return reply([{ type: 'tool-call', ...call }], true, prompt, call.input)
      }
      const text = JSON.stringify({ output: codeAnswer(task, uses) })
      return reply([{ type: 'text', text }], false, prompt, text)
    },
    doStream() {
      throw new Error('the offline model does not stream')
    },
  }
}
