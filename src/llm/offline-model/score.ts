/**
 * The offline placeholder's scores: a fixed rule on the words, said as such
 * in the notes. How many of the goal's words the subgoals use, whether
 * there are 3 to 5 of them, whether an order is given, none with the same
 * words as another;
 * a small seeded jitter makes two scorers differ as real ones do.
 *
 * Its judgement of each subgoal: the offline decomposer's "produce the
 * result" step of a written goal is split once more (so the tree shows a
 * second level); everything else is one deliverable, needing what its words
 * name (titles.ts), fitted to what the room's executors offer.
 */
import { MAX_NOTES } from '../../protocol/limits'
import type { Judgement } from '../../protocol/records'
import type { LlmOutputs, LlmTask } from '../types'
import { capabilityOf, fitToRoom, stageOf } from './titles'
import { contentWords, hashString } from './words'

type ScoreTask = Extract<LlmTask, { kind: 'score' }>

/** The rule's parts: a split of 3 to 5 steps in order, using every goal word, scores 0.85. */
const BASE = 0.35
const W_WORDS = 0.3
const W_SIZE = 0.1
const W_ORDER = 0.1
/** Each subgoal with the same words as an earlier one. */
const ALIKE_PENALTY = 0.2
/** Scorer-to-scorer spread: visible, far smaller than the rule's steps. */
const JITTER = 0.03

function judge(task: ScoreTask, text: string): Judgement {
  const needs = capabilityOf(text)
  const capability = fitToRoom(needs, task.roomCapabilities)
  const again =
    task.depth < task.maxDepth && stageOf(text)?.stage === 'work' && needs === 'can_write_text'
  return { atomic: !again, capability }
}

export function offlineScore(task: ScoreTask, seed: string): LlmOutputs['score'] {
  // the offline decomposer's own stage words are not the goal's
  const goal = task.path.at(-1) ?? ''
  const goalWords = new Set(contentWords(stageOf(goal)?.subject ?? goal))
  const texts = task.subgoals.map((s) => s.text)
  const used = new Set(texts.flatMap(contentWords))
  const found = [...goalWords].filter((w) => used.has(w)).length
  const share = goalWords.size === 0 ? 1 : found / goalWords.size
  const sized = texts.length >= 3 && texts.length <= 5
  const ordered = task.subgoals.some((s) => s.dependsOn.length > 0)
  const sets = texts.map((t) => [...new Set(contentWords(t))].sort().join(' '))
  const alike = sets.filter((words, i) => sets.indexOf(words) !== i).length
  const jitter = ((hashString(`${seed}\n${texts.join('\n')}`) % 1001) / 500 - 1) * JITTER
  const raw =
    BASE +
    W_WORDS * share +
    W_SIZE * (sized ? 1 : 0.5) +
    W_ORDER * (ordered ? 1 : 0) -
    ALIKE_PENALTY * alike +
    jitter
  const notes =
    `Offline placeholder score: a fixed rule on the words, not a judgement of the content. ` +
    `The subgoals use ${found} of the goal's ${goalWords.size} words; ${texts.length} subgoals` +
    `${sized ? '' : ' (3 to 5 score best)'}; ${ordered ? 'an order is given' : 'no order given'}` +
    `${alike ? `; ${alike} alike` : ''}. A real model judges coverage, overlap and actionability.`
  return {
    score: Math.round(Math.min(1, Math.max(0, raw)) * 100) / 100,
    notes: notes.slice(0, MAX_NOTES),
    judgements: task.subgoals.map((s) => judge(task, s.text)),
  }
}
