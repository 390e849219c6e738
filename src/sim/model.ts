/**
 * The simulator's stand-in LLM: cheap, seeded, and varied enough to grow
 * trees of many shapes (2 to 4 subgoals, dependencies, mixed atomicity and
 * capabilities) and to fail now and then when asked to.
 */
import type { Capability } from '../protocol/capabilities'
import type { LlmOutcome, LlmTask } from '../roles/llm-contract'
import { createRng, type Rng } from './rng'

export interface SimModelOptions {
  /** fixed number of subgoals per split; random 2..4 when undefined */
  branching?: number
  /** probability that a call fails after its retries */
  failRate: number
  /**
   * per task kind, a probability that replaces failRate: e.g. score calls
   * whose replies are cut at the token limit half the time (issue 44)
   */
  failRates?: Partial<Record<LlmTask['kind'], number>>
  /** capabilities leaves may need, with weights */
  capabilities: readonly [Capability, number][]
  /** always judge subgoals composite (until the depth cap), for fixed tree shapes */
  alwaysComposite?: boolean
  /**
   * Scores that fall below the threshold and disagree: each proposal has a
   * quality in [min, max] (from its text, the same for every scorer), and
   * each scorer's score is that quality ± up to `disagreement`. Default: an
   * independent draw in [0.35, 0.98] per score.
   */
  scores?: { min: number; max: number; disagreement: number }
}

/** A proposal's score as one scorer sees it (see SimModelOptions.scores). */
function simScore(task: Extract<LlmTask, { kind: 'score' }>, rng: Rng, options: SimModelOptions) {
  const range = options.scores
  if (!range) return 0.35 + rng.next() * 0.63
  const text = task.subgoals.map((subgoal) => subgoal.text).join('|') + task.rationale
  const quality = range.min + createRng(text).next() * (range.max - range.min)
  const noise = (rng.next() * 2 - 1) * range.disagreement
  return Math.min(1, Math.max(0, quality + noise))
}

/**
 * How often one scorer judges a subgoal otherwise than the subgoal's own
 * leaning (its atomicity or its capability): scorers disagree, so the
 * majority and tie rules of plan/classify.ts are exercised.
 */
const JUDGEMENT_DISAGREEMENT = 0.2

/**
 * A scorer's judgement of each subgoal: every subgoal leans one way (from
 * its text, the same for every scorer; deeper ones lean atomic), and each
 * scorer departs from the leaning now and then.
 */
function simJudgements(
  task: Extract<LlmTask, { kind: 'score' }>,
  rng: Rng,
  options: SimModelOptions,
) {
  return task.subgoals.map((subgoal) => {
    const leaning = createRng(`judge:${subgoal.text}`)
    const atomic = options.alwaysComposite
      ? false
      : leaning.chance(task.depth / (task.maxDepth + 0.5)) !== rng.chance(JUDGEMENT_DISAGREEMENT)
    const usual = weighted(leaning, options.capabilities)
    const capability = rng.chance(JUDGEMENT_DISAGREEMENT)
      ? weighted(rng, options.capabilities)
      : usual
    return { atomic, capability }
  })
}

export const DEFAULT_CAPABILITY_MIX: readonly [Capability, number][] = [
  ['can_write_text', 6],
  ['can_query_api', 2],
  ['can_run_code', 2],
]

function short(text: string, max = 60): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

function weighted<T>(rng: Rng, items: readonly [T, number][]): T {
  const total = items.reduce((sum, [, w]) => sum + w, 0)
  let roll = rng.next() * total
  for (const [item, weight] of items) {
    roll -= weight
    if (roll < 0) return item
  }
  return items[items.length - 1]![0]
}

export function simAnswer(
  task: LlmTask,
  rng: Rng,
  options: SimModelOptions,
  persona: string,
): LlmOutcome {
  const usage = {
    provider: 'sim',
    model: 'sim-1',
    inputTokens: rng.int(50, 400),
    outputTokens: rng.int(20, 300),
    offline: true,
  }
  if (rng.chance(options.failRates?.[task.kind] ?? options.failRate)) {
    return {
      ok: false,
      kind: task.kind,
      error: 'simulated LLM failure',
      usage,
      attempts: 3,
      errorKind: 'output',
    } as LlmOutcome
  }
  const goal = task.path[task.path.length - 1] ?? ''
  switch (task.kind) {
    case 'decompose': {
      const count = options.branching ?? rng.int(2, 4)
      const subgoals = Array.from({ length: count }, (_, i) => ({
        text: `${persona} step ${i + 1}/${count} of "${short(goal)}"`,
        dependsOn: i > 0 && rng.chance(0.3) ? [i - 1] : [],
      }))
      return {
        ok: true,
        kind: 'decompose',
        value: { subgoals, rationale: `split by ${persona}` },
        usage,
        attempts: 1,
      }
    }
    case 'score':
      return {
        ok: true,
        kind: 'score',
        value: {
          score: Math.round(simScore(task, rng, options) * 100) / 100,
          notes: 'simulated score',
          judgements: simJudgements(task, rng, options),
        },
        usage,
        attempts: 1,
      }
    case 'execute':
      return {
        ok: true,
        kind: 'execute',
        value: { output: `Done: ${short(task.task, 200)} (${task.dependencies.length} inputs)` },
        usage,
        attempts: 1,
      }
    case 'rollup':
      return {
        ok: true,
        kind: 'rollup',
        value: {
          output: `# ${short(goal, 200)}\n\n${task.parts.map((p) => `- ${short(p.text, 80)}`).join('\n')}`,
        },
        usage,
        attempts: 1,
      }
  }
}
