/**
 * Offline scoring with the prototype's rubric, computed from the proposal:
 * - coverage: the goal's own words reappear in the subgoals, and (for a
 *   recognised family) its essential aspects are addressed;
 * - overlap: the most similar pair of subgoals, by shared words beyond the
 *   goal's topic words (which every subgoal may legitimately repeat);
 * - actionability: each subgoal starts with a verb, is neither a fragment
 *   nor a paragraph, and avoids vague filler.
 * A small seeded jitter makes scorers differ slightly, as real ones do.
 */
import type { LlmOutputs, LlmTask } from '../types'
import { MAX_NOTES } from '../../protocol/limits'
import { familyOf } from './catalog'
import { offlineJudgement } from './classify'
import { rngFor } from './rng'
import { ACTION_VERBS, clip, contentStems, GENERIC_VERBS, stem, words } from './text'

type ScoreTask = Extract<LlmTask, { kind: 'score' }>

/** Rubric weights: the prototype weighs its three criteria equally; coverage slightly more, as a gap is worst. */
const W_COVERAGE = 0.4
const W_OVERLAP = 0.3
const W_ACTION = 0.3
/** Two subgoals are usually too coarse a split; six is a little fragmented. */
const COUNT_ADJUST: Record<number, number> = { 2: -0.08, 6: -0.02 }
/** Scorer-to-scorer spread: visible in the UI, far smaller than real quality differences. */
const JITTER = 0.03
/** Fewer words than this is a fragment, more is a paragraph rather than a step. */
const MIN_STEP_WORDS = 3
const MAX_STEP_WORDS = 32
/**
 * Coverage without a known family: words alone are a weak signal (a good
 * split may rephrase the goal), so they move the score within 0.3..1.
 */
const WORDS_ONLY_FLOOR = 0.3
/** With a family, its essential aspects count most; the goal's words confirm the topic. */
const ASPECT_WEIGHT = 0.6
/** Subgoals need not repeat every goal word: reaching 60% of them counts as full. */
const WORD_CREDIT = 0.4
/** A step that does not start with a verb may still be clear, but less so. */
const NO_VERB_ACTIONABILITY = 0.55
/** Penalties on one step's actionability. */
const FRAGMENT_PENALTY = 0.3
const RAMBLING_PENALTY = 0.2
const VAGUE_PENALTY = 0.3
/** A criterion within this of perfect is not worth calling a weakness. */
const NO_WEAKNESS_BELOW = 0.2
const VAGUE = /\b(stuff|things|etc|misc\w*|various|somehow|whatever|everything else)\b/i

interface Breakdown {
  coverage: number
  overlap: number
  actionability: number
}

function coverage(goal: string, texts: string[], isRoot: boolean): number {
  const goalWords = [...contentStems(goal)].filter((w) => !GENERIC_VERBS.has(w))
  const sub = new Set(texts.flatMap((t) => [...contentStems(t)]))
  const wordCov =
    goalWords.length === 0 ? 1 : goalWords.filter((w) => sub.has(w)).length / goalWords.length
  // Family aspects describe whole projects; a deeper goal is judged on its own words only.
  const family = isRoot ? familyOf(goal) : undefined
  if (!family) return WORDS_ONLY_FLOOR + (1 - WORDS_ONLY_FLOOR) * wordCov
  const joined = texts.join(' \n ')
  const aspectCov = family.aspects.filter((a) => a.re.test(joined)).length / family.aspects.length
  return ASPECT_WEIGHT * aspectCov + (1 - ASPECT_WEIGHT) * Math.min(1, WORD_CREDIT + wordCov)
}

function overlap(goal: string, texts: string[]): number {
  const topic = contentStems(goal)
  const sets = texts.map((t) => new Set([...contentStems(t)].filter((w) => !topic.has(w))))
  let worst = 0
  for (let i = 0; i < sets.length; i++) {
    for (let j = i + 1; j < sets.length; j++) {
      const a = sets[i]!
      const b = sets[j]!
      if (texts[i]!.trim().toLowerCase() === texts[j]!.trim().toLowerCase()) return 1
      const union = new Set([...a, ...b]).size
      const shared = [...a].filter((w) => b.has(w)).length
      worst = Math.max(worst, union === 0 ? 1 : shared / union)
    }
  }
  return worst
}

function actionability(texts: string[]): number {
  const each = texts.map((text) => {
    const ws = words(text)
    let s =
      ACTION_VERBS.has(ws[0] ?? '') || ACTION_VERBS.has(stem(ws[0] ?? ''))
        ? 1
        : NO_VERB_ACTIONABILITY
    if (ws.length < MIN_STEP_WORDS) s -= FRAGMENT_PENALTY
    if (ws.length > MAX_STEP_WORDS) s -= RAMBLING_PENALTY
    if (VAGUE.test(text)) s -= VAGUE_PENALTY
    return Math.max(0, s)
  })
  return each.reduce((a, b) => a + b, 0) / Math.max(1, each.length)
}

export function rubric(goal: string, texts: string[], isRoot: boolean): Breakdown {
  return {
    coverage: coverage(goal, texts, isRoot),
    overlap: overlap(goal, texts),
    actionability: actionability(texts),
  }
}

function weakest(b: Breakdown): string {
  const gaps = [
    { gap: 1 - b.coverage, note: 'Coverage: parts of the goal are not addressed by any subgoal.' },
    { gap: b.overlap, note: 'Overlap: at least two subgoals cover much the same work.' },
    {
      gap: 1 - b.actionability,
      note: 'Actionability: some subgoals are vague or not phrased as actions.',
    },
  ].sort((x, y) => y.gap - x.gap)
  const top = gaps[0]!
  return top.gap < NO_WEAKNESS_BELOW
    ? 'No real weakness: the split is complete, distinct and actionable.'
    : top.note
}

const pct = (x: number): string => `${Math.round(x * 100)}%`

export function offlineScore(task: ScoreTask, seed: string): LlmOutputs['score'] {
  const goal = task.path.at(-1) ?? ''
  const texts = task.subgoals.map((s) => s.text)
  const b = rubric(goal, texts, task.path.length <= 1)
  const rng = rngFor('score', seed, goal, ...texts)
  const raw =
    W_COVERAGE * b.coverage +
    W_OVERLAP * (1 - b.overlap) +
    W_ACTION * b.actionability +
    (COUNT_ADJUST[texts.length] ?? 0) +
    (rng.next() * 2 - 1) * JITTER
  const score = Math.round(Math.min(1, Math.max(0, raw)) * 100) / 100
  const notes = clip(
    `${weakest(b)} Coverage ${pct(b.coverage)}, overlap ${pct(b.overlap)}, actionability ${pct(b.actionability)}; ${texts.length} subgoals.`,
    MAX_NOTES,
  )
  // one judgement per subgoal: the accepted split is classified by its voters
  const judgements = task.subgoals.map((_, index) => offlineJudgement(task, index))
  return { score, notes, judgements }
}
