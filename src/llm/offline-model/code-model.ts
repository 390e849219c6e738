/**
 * The offline model with code on (issue 24): for a can_run_code leaf it
 * writes a small deterministic program about the task, runs it through the
 * same tool loop as a real model (tool-loop.ts: it is an AI SDK language
 * model that calls run_javascript), and cites the program's real output,
 * as it came back from the sandbox, in its deliverable.
 *
 * The program is honest busywork: it counts the task's words and days and
 * hashes its text, values that only a run can print.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
} from '@ai-sdk/provider'
import { MAX_OUTPUT } from '../../protocol/limits'
import { estimateTokens } from '../tokens'
import { RUN_JAVASCRIPT } from '../tools'
import type { LlmTask } from '../types'
import { offlineExecute } from './execute'

type ExecuteTask = Extract<LlmTask, { kind: 'execute' }>

/** How much of the program's output the deliverable quotes. */
const QUOTED_OUTPUT = 1_500

/** The program the offline model runs for a task: deterministic, a few lines. */
export function offlineProgram(task: ExecuteTask): string {
  return [
    `const task = ${JSON.stringify(task.task)}`,
    "const words = task.toLowerCase().match(/[a-z0-9']+/g) ?? []",
    'const counts = new Map()',
    'for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1)',
    'let hash = 0x811c9dc5',
    'for (const ch of task) hash = Math.imul(hash ^ ch.codePointAt(0), 0x01000193) >>> 0',
    'const longest = [...counts.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : 1))',
    'console.log(`words: ${words.length} (${counts.size} distinct)`)',
    "console.log(`longest: ${longest.slice(0, 3).join(', ')}`)",
    "console.log(`fnv1a: ${hash.toString(16).padStart(8, '0')}`)",
  ].join('\n')
}

interface RunResult {
  exit: number
  stdout: string
  error?: string
}

/** The run_javascript result in the prompt, if the program ran already. */
function lastRun(options: LanguageModelV3CallOptions): RunResult | null {
  for (const message of [...options.prompt].reverse()) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type !== 'tool-result' || part.toolName !== RUN_JAVASCRIPT) continue
      const value = part.output.type === 'json' ? part.output.value : null
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        const v = value as Record<string, unknown>
        return {
          exit: typeof v.exit === 'number' ? v.exit : 1,
          stdout: typeof v.stdout === 'string' ? v.stdout : '',
          ...(typeof v.error === 'string' ? { error: v.error } : {}),
        }
      }
      return { exit: 1, stdout: '', error: 'the tool gave no result' }
    }
  }
  return null
}

function promptText(options: LanguageModelV3CallOptions): string {
  return options.prompt
    .map((m) =>
      typeof m.content === 'string'
        ? m.content
        : m.content.map((p) => ('text' in p && typeof p.text === 'string' ? p.text : '')).join(''),
    )
    .join('\n')
}

function deliverable(task: ExecuteTask, seed: string, run: RunResult | null): string {
  const base = offlineExecute(task, seed).output
  let note: string
  if (!run) note = '\n\n_Not run: code was not available to this executor._'
  else if (run.exit === 0) {
    const out = run.stdout.trim().slice(0, QUOTED_OUTPUT) || '(no output)'
    note = `\n\n### Checked by running it\n\nThe check program ran in this executor's sandbox and printed:\n\n\`\`\`text\n${out}\n\`\`\``
  } else
    note = `\n\n### Checked by running it\n\nThe check program failed: ${run.error ?? 'exit ' + run.exit}.`
  return `${base}${note}`.slice(0, MAX_OUTPUT)
}

/** An AI SDK language model (v3 spec) that is the offline model of one execute task. */
export function offlineCodeModel(
  task: ExecuteTask,
  seed: string,
  modelId: string,
): LanguageModelV3 {
  let calls = 0
  return {
    specificationVersion: 'v3',
    provider: 'offline',
    modelId,
    supportedUrls: {},
    async doGenerate(options): Promise<LanguageModelV3GenerateResult> {
      options.abortSignal?.throwIfAborted()
      const run = lastRun(options)
      const canCall =
        options.toolChoice?.type !== 'none' &&
        (options.tools ?? []).some((t) => t.type === 'function' && t.name === RUN_JAVASCRIPT)
      const inputTokens = estimateTokens(promptText(options))
      const usage = (output: string) => ({
        inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: estimateTokens(output), text: estimateTokens(output), reasoning: 0 },
      })
      calls++
      if (!run && canCall) {
        const input = JSON.stringify({ code: offlineProgram(task) })
        return {
          content: [
            { type: 'tool-call', toolCallId: `offline-${calls}`, toolName: RUN_JAVASCRIPT, input },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_use' },
          usage: usage(input),
          warnings: [],
        }
      }
      const text = JSON.stringify({ output: deliverable(task, seed, run) })
      return {
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: 'end_turn' },
        usage: usage(text),
        warnings: [],
      }
    },
    doStream() {
      throw new Error('the offline model does not stream')
    },
  }
}
