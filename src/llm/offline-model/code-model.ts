/**
 * The offline model with code on (issue 24): for a can_run_code leaf it
 * writes a small deterministic program about the task, runs it through the
 * same tool loop as a real model (tool-loop.ts: it is an AI SDK language
 * model that calls run_javascript), and cites the program's real output,
 * as it came back from the sandbox, in its deliverable.
 *
 * The program is the deliverable's own code with its checks
 * (deliverables-runnable.ts), so what the answer says ran is what ran.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
} from '@ai-sdk/provider'
import { estimateTokens } from '../tokens'
import { RUN_JAVASCRIPT } from '../tools'
import type { LlmTask } from '../types'
import { runnableSketch } from './deliverables-runnable'
import { finish, leafFor, offlineExecute } from './execute'

type ExecuteTask = Extract<LlmTask, { kind: 'execute' }>

/** How much of the program's output the deliverable quotes. */
const QUOTED_OUTPUT = 1_500

/** The program the offline model runs for a task: the deliverable's own code, with its checks. */
export function offlineProgram(task: ExecuteTask, seed = ''): string {
  return runnableSketch(leafFor(task, seed)).program
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

const fence = (lang: string, text: string): string => `\`\`\`${lang}\n${text}\n\`\`\``

/**
 * The deliverable after the run (issue 43): the code shown is the program
 * that ran, and the section under it says what happened, truthfully. With
 * no run (no tool offered) it is the written sketch, marked "Written, not run".
 */
function deliverable(task: ExecuteTask, seed: string, run: RunResult | null): string {
  if (!run) return offlineExecute(task, seed).output
  const leaf = leafFor(task, seed)
  const code = runnableSketch(leaf)
  const out = run.stdout.trim().slice(0, QUOTED_OUTPUT)
  const check =
    run.exit === 0
      ? ['### Checked by running it', '', code.checks, '', fence('text', out || '(no output)')]
      : [
          '### Ran it, and it failed',
          '',
          `The code above failed in this executor’s sandbox: ${run.error ?? `exit ${run.exit}`}.`,
          ...(out ? ['', 'It printed:', '', fence('text', out)] : []),
        ]
  const redo = task.redo
    ? [`> Redone following the author's note: “${task.redo.note.replace(/\s+/g, ' ').trim()}”.`, '']
    : []
  const body = [
    ...redo,
    `## ${leaf.task}`,
    '',
    `Approach: ${code.approach}.`,
    '',
    code.shown,
    '',
    `**Use:** ${code.usage}`,
    '',
    ...check,
  ].join('\n')
  return finish(task, body)
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
        const input = JSON.stringify({ code: offlineProgram(task, seed) })
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
