/**
 * What the mock LLM says: recognise the task in a request, rebuild it from
 * the prompt, and answer it with the offline model ('offline' mode) or a
 * fixed tree ('shape' mode), or with deliberately broken output on demand.
 *
 * Recognition, in order:
 * 1. the marker line `task: <kind>` that src/llm/prompts.ts puts first in
 *    every system prompt (robust whatever wire format carried it);
 * 2. the schema name (OpenAI json_schema.name, Anthropic tool name), mapped
 *    back through SCHEMA_NAMES.
 * The task's data is then parsed from the user prompt's tags
 * (parseUserPrompt), the exact inverse of how src/llm built it.
 */
import { offlineAnswer } from '../../src/llm/offline'
import { hashString } from './rng'
import { parseUserPrompt, taskKindFromSystem } from '../../src/llm/prompts'
import { SCHEMA_NAMES } from '../../src/llm/schemas'
import type { Capability, LlmTask, LlmTaskKind } from '../../src/llm/types'

export type MockMode = 'offline' | 'shape'

export interface ShapeOptions {
  /** subgoals per decomposition in shape mode */
  branching: number
  /** the score every proposal gets in shape mode (>= 0.6 means immediate acceptance) */
  score: number
  /**
   * 'fixed': every score is `score`. 'realistic': each proposal has a
   * quality (from its prompt) in REALISTIC_QUALITY and each scorer's score
   * is that quality ± up to REALISTIC_DISAGREEMENT, so scores spread, some
   * fall under 0.6, and scorers disagree.
   */
  scores?: 'fixed' | 'realistic'
  /** capability every shape-mode leaf needs */
  capability: Capability
}

/**
 * Realistic scores: proposal quality from 0.3 to 0.85 (about a third of
 * proposals below the 0.6 threshold on average), and scorers who disagree
 * by up to 0.2 either way, as LLM judges sampling at temperature do.
 */
export const REALISTIC_QUALITY = { min: 0.3, max: 0.85 }
export const REALISTIC_DISAGREEMENT = 0.2

/** A number in [0, 1) from a text: reproducible, and the same on both sides of a bench. */
function unit(text: string): number {
  return hashString(text) / 2 ** 32
}

/**
 * A realistic score: `task` fixes the proposal's quality, `seed` (which
 * asking of the same prompt this is) the scorer's disagreement.
 */
export function realisticScore(task: Extract<LlmTask, { kind: 'score' }>, seed: string): number {
  const proposal = `${task.path.join('\n')}\n${task.subgoals.map((s) => s.text).join('\n')}\n${task.rationale}`
  const { min, max } = REALISTIC_QUALITY
  const quality = min + unit(proposal) * (max - min)
  const noise = (unit(`${proposal}\n${seed}`) * 2 - 1) * REALISTIC_DISAGREEMENT
  return Math.round(Math.min(1, Math.max(0, quality + noise)) * 100) / 100
}

/** The protocol allows 2 to 6 subgoals. */
const MIN_BRANCHING = 2
const MAX_BRANCHING = 6

export function recogniseTask(
  system: string,
  prompt: string,
  schemaName?: string,
): LlmTask | undefined {
  let kind: LlmTaskKind | undefined = taskKindFromSystem(system)
  if (!kind && schemaName) {
    kind = (Object.entries(SCHEMA_NAMES) as [LlmTaskKind, string][]).find(
      ([, name]) => name === schemaName,
    )?.[0]
  }
  return kind ? parseUserPrompt(kind, prompt) : undefined
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

/** A predictable tree for benchmarks: every goal splits into `branching` parts until maxDepth. */
export function shapeAnswer(task: LlmTask, shape: ShapeOptions, seed: string): unknown {
  const goal = task.path.at(-1) ?? 'goal'
  switch (task.kind) {
    case 'decompose': {
      const n = Math.min(MAX_BRANCHING, Math.max(MIN_BRANCHING, Math.round(shape.branching)))
      return {
        subgoals: Array.from({ length: n }, (_, i) => ({
          text: `Part ${i + 1} of ${n} (depth ${task.depth + 1}): ${clip(goal, 120)}`,
          dependsOn: [],
        })),
        // each decomposer's draft is its own: realistic scores need proposals that
        // differ, and the benchmark tells a goal's proposals apart by their rationale
        rationale: `Shape mode: ${n} equal parts (draft ${seed}).`,
      }
    }
    case 'score': {
      // every subgoal composite until the depth cap: the fixed tree
      const judgements = task.subgoals.map(() => ({
        atomic: task.depth >= task.maxDepth,
        capability: shape.capability,
      }))
      return shape.scores === 'realistic'
        ? { score: realisticScore(task, seed), notes: 'Shape mode: realistic score.', judgements }
        : { score: shape.score, notes: 'Shape mode: fixed score.', judgements }
    }
    case 'execute':
    case 'rollup':
      return offlineAnswer(task, seed)
  }
}

export function answerTask(
  task: LlmTask,
  mode: MockMode,
  shape: ShapeOptions,
  seed: string,
): unknown {
  return mode === 'shape' ? shapeAnswer(task, shape, seed) : offlineAnswer(task, seed)
}

/** Valid JSON that breaks the task's schema, to exercise validation and feedback. */
export function schemaViolation(kind: LlmTaskKind | undefined): unknown {
  switch (kind) {
    case 'decompose':
      return {
        subgoals: [
          { text: 'Do the second thing first', dependsOn: [1] },
          { text: 'Do the first thing', dependsOn: [] },
        ],
        rationale: 'dependsOn points forward on purpose',
      }
    case 'score':
      return {
        score: 1.7,
        notes: 'out of range on purpose',
        judgements: [{ atomic: 'maybe', capability: 'can_fly' }],
      }
    default:
      return { output: '' }
  }
}

/** Text that is not valid JSON: what a model cut off mid-reply looks like. */
export const INVALID_JSON_TEXT = '{"subgoals": [{"text": "Start here", "dependsOn": [}'
