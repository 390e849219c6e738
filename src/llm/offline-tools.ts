/**
 * The built-in offline model with a person's tools (issue 57), so the whole
 * flow runs without a key: a goal that cues a tool of a group the room
 * offers (tool-cues.ts: `read_text_file {"path": …}`) is split so that one
 * subgoal carries the cue, its scorers judge that subgoal to need the group,
 * and the executor that has it runs the offline model through the same tool
 * loop as a real model: it calls the cued tools (or, with no cue, one that
 * takes no arguments) and quotes what they REALLY returned.
 *
 * Kept apart from offline-model/ on purpose: offline.ts hooks it in twice
 * (its answers pass through withToolCues; an execute call with a toolbox
 * runs offlineToolModel), and nothing else of the offline model knows tools.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
} from '@ai-sdk/provider'
import { MAX_SUBGOAL_TEXT, MAX_SUBGOALS } from '../protocol/limits'
import type { ToolGroup } from '../protocol/tool-groups'
import { offlineExecute } from './offline-model/execute'
import { estimateTokens } from './tokens'
import type { Toolbox } from './toolbox'
import { toolCues, type ToolCue } from './tool-cues'
import type { LlmOutputs, LlmTask } from './types'

type ExecuteTask = Extract<LlmTask, { kind: 'execute' }>

/** How much of each tool's answer the deliverable quotes. */
const QUOTED_RESULT = 3_000

/** The cues of `text` for tools the room's groups offer, with their group. */
function groupCues(text: string, groups: readonly ToolGroup[]): { group: string; cue: ToolCue }[] {
  return groups.flatMap((group) =>
    toolCues(
      text,
      group.tools.map((t) => t.name),
    ).map((cue) => ({ group: group.name, cue })),
  )
}

/** The subgoal that carries a cue (the words the scorer hook looks for). */
function cueSubgoal(group: string, cue: ToolCue): string {
  return `Get what it needs from ${group} with ${cue.text}`
}

function decomposeWithCue(
  task: Extract<LlmTask, { kind: 'decompose' }>,
  answer: LlmOutputs['decompose'],
): LlmOutputs['decompose'] {
  const cued = groupCues(task.path.at(-1) ?? '', task.roomTools ?? [])[0]
  if (!cued) return answer
  const text = cueSubgoal(cued.group, cued.cue)
  if (text.length > MAX_SUBGOAL_TEXT) return answer
  // the cue's subgoal first; the others keep their order (and dependencies,
  // one further on) and name the tool's answer instead of the cue, since the
  // offline titles repeat the goal's words and only one subgoal should call it
  const mention = `what ${cued.cue.name} returns`
  const kept = answer.subgoals.slice(0, MAX_SUBGOALS - 1).map((s) => ({
    text: s.text.split(cued.cue.text).join(mention),
    dependsOn: s.dependsOn.filter((d) => d < MAX_SUBGOALS - 1).map((d) => d + 1),
  }))
  return { ...answer, subgoals: [{ text, dependsOn: [] }, ...kept] }
}

function scoreWithCue(
  task: Extract<LlmTask, { kind: 'score' }>,
  answer: LlmOutputs['score'],
): LlmOutputs['score'] {
  const groups = task.roomTools ?? []
  if (groups.length === 0) return answer
  const judgements = answer.judgements.map((judgement, index) => {
    const cued = groupCues(task.subgoals[index]?.text ?? '', groups)[0]
    // the tool does the looking up: a leaf, written as text from what it returns
    return cued
      ? { atomic: true, capability: 'can_write_text' as const, tool: cued.group }
      : judgement
  })
  return { ...answer, judgements }
}

/**
 * The offline model's answer, with the room's tools in mind: a goal that
 * cues a tool gets a subgoal carrying the cue, and that subgoal is judged to
 * need the tool's group. Any other answer passes unchanged.
 */
export function withToolCues<T extends LlmTask>(
  task: T,
  answer: LlmOutputs[T['kind']],
): LlmOutputs[T['kind']] {
  if (task.kind === 'decompose')
    return decomposeWithCue(task, answer as LlmOutputs['decompose']) as LlmOutputs[T['kind']]
  if (task.kind === 'score')
    return scoreWithCue(task, answer as LlmOutputs['score']) as LlmOutputs[T['kind']]
  return answer
}

/** The calls to make for a task: its cues, else one tool that needs no arguments. */
export function plannedCalls(task: ExecuteTask, box: Toolbox): ToolCue[] {
  const names = box.tools.map((t) => t.name)
  const cues = toolCues([task.task, ...task.path].join('\n'), names)
  if (cues.length > 0) return cues
  const bare = box.tools.find((t) => {
    const required = t.inputSchema.required
    return !Array.isArray(required) || required.length === 0
  })
  return bare ? [{ name: bare.name, input: {}, text: `${bare.name} {}` }] : []
}

interface ToolResultSeen {
  name: string
  text: string
  failed: boolean
}

/** The tool results already in the conversation, oldest first. */
function resultsIn(options: LanguageModelV3CallOptions): ToolResultSeen[] {
  const seen: ToolResultSeen[] = []
  for (const message of options.prompt) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue
      const output = part.output as { type: string; value?: unknown }
      const value = output.value
      const failed =
        output.type.startsWith('error') ||
        (typeof value === 'object' && value !== null && 'error' in value)
      const text =
        typeof value === 'string'
          ? value
          : typeof value === 'object' && value !== null && 'error' in value
            ? String((value as { error: unknown }).error)
            : JSON.stringify(value ?? '')
      seen.push({ name: part.toolName, text, failed })
    }
  }
  return seen
}

const fence = (text: string): string => {
  const ticks = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)))
  return `${ticks}text\n${text}\n${ticks}`
}

function deliverable(
  task: ExecuteTask,
  seed: string,
  group: string,
  seen: ToolResultSeen[],
): string {
  const base = offlineExecute(task).output
  const found = seen.map((r) =>
    r.failed
      ? `### ${group}: ${r.name} did not answer\n\n${fence(r.text.slice(0, QUOTED_RESULT))}`
      : `### What ${group}'s ${r.name} returned\n\n${fence(r.text.slice(0, QUOTED_RESULT).trim() || '(nothing)')}`,
  )
  const none = seen.length === 0 ? [`_No tool of ${group} was called: the task named none._`] : []
  return [base, '', ...found, ...none].join('\n\n').trim()
}

/** An AI SDK language model (v3 spec) that is the offline model of one execute task with a toolbox. */
export function offlineToolModel(
  task: ExecuteTask,
  seed: string,
  box: Toolbox,
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
      const seen = resultsIn(options)
      const prompt = options.prompt.map((m) => JSON.stringify(m.content)).join('\n')
      const inputTokens = estimateTokens(prompt)
      const usage = (output: string) => ({
        inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: estimateTokens(output), text: estimateTokens(output), reasoning: 0 },
      })
      const planned = plannedCalls(task, box)
      if (seen.length === 0 && planned.length > 0 && options.toolChoice?.type !== 'none') {
        const content = planned.map((cue) => ({
          type: 'tool-call' as const,
          toolCallId: `offline-tool-${++calls}`,
          toolName: cue.name,
          input: JSON.stringify(cue.input),
        }))
        return {
          content,
          finishReason: { unified: 'tool-calls', raw: 'tool_use' },
          usage: usage(JSON.stringify(content)),
          warnings: [],
        }
      }
      const text = JSON.stringify({ output: deliverable(task, seed, box.group, seen) })
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
