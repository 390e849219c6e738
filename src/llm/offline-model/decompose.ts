/**
 * The offline placeholder's splits: fixed patterns filled with the goal's
 * own words. A goal that names its parts after a colon is split into them;
 * any other goal into stages (what the result must cover, the work, a
 * check), and the work of a written goal once more (a draft, then a
 * revision). The seed picks one of two patterns, so decomposers propose
 * different splits for the scorers to choose between. After a veto the
 * author's note gives fewer steps when it asks for them, else becomes the
 * split's first step, and the rationale says which.
 */
import { MAX_RATIONALE } from '../../protocol/limits'
import type { LlmOutputs, LlmTask, SubgoalDraft } from '../types'
import { stageOf, subjectFor, title, type Stage } from './titles'
import { clause, colonList, hashString, joinList, quote } from './words'

type DecomposeTask = Extract<LlmTask, { kind: 'decompose' }>
interface Split {
  subgoals: SubgoalDraft[]
  why: string
  /** after a veto: what this split did with the author's note */
  did?: string
}
/** A fixed split: its stages in order, each waiting for the one before (a check, for all before). */
type Pattern = { why: string; stages: Stage[] }

const STAGED: readonly Pattern[] = [
  { why: 'what the result must cover, the work, a check', stages: ['scope', 'work', 'check'] },
  { why: 'what the work needs, the work, a summary', stages: ['inputs', 'work', 'summary'] },
]
/** How the work step of a written goal is split again. */
const WORK: readonly Pattern[] = [
  { why: 'a first version, then a revision of it', stages: ['draft', 'revise'] },
  { why: 'an outline, then each part written out', stages: ['outline', 'fill'] },
]
const FEWER_STEPS: Pattern = { why: 'the work, then a check', stages: ['work', 'check'] }

const FEWER = /\b(fewer|less|simpler|simplify|shorter|smaller|too (many|long|detailed))\b/i

const fill = (subject: string, p: Pattern): Split => ({
  subgoals: p.stages.map((stage, i) => ({
    text: title(subject, stage),
    dependsOn: stage === 'check' ? [...Array(i).keys()] : i > 0 ? [i - 1] : [],
  })),
  why: p.why,
})

/** A goal that lists its parts: one subgoal each, with or without a final check. */
function byParts(head: string, items: readonly string[], check: boolean): Split {
  const subgoals = items.map((item) => ({ text: `${head}: ${item}`, dependsOn: [] as number[] }))
  if (check) subgoals.push({ text: title(head, 'fit'), dependsOn: items.map((_, i) => i) })
  return {
    subgoals,
    why: `the parts the goal names after its colon${check ? ', then a check' : ''}`,
  }
}

/** The parts a goal lists after a colon, when they fit a split (up to 5, and a check). */
function partsOf(goal: string) {
  const list = colonList(goal)
  const fits =
    list && list.items.length <= 5 && list.items.every((i) => list.head.length + i.length < 300)
  return fits ? list : null
}

/** The splits this goal can have, the seed's choice among them first. */
function splits(goal: string, seed: string): Split[] {
  const list = partsOf(goal)
  const own = stageOf(goal)
  const options = list
    ? [byParts(list.head, list.items, true), byParts(list.head, list.items, false)]
    : own?.stage === 'work'
      ? WORK.map((p) => fill(own.subject, p))
      : STAGED.map((p) => fill(subjectFor(goal), p))
  const first = hashString(`${seed}\n${goal}`) % options.length
  return [...options.slice(first), ...options.slice(0, first)]
}

const key = (texts: readonly string[]) => texts.join('\n').toLowerCase()

/** The note as the split's first step, which every other step waits for. */
function noteFirst(split: Split, note: string): Split {
  const text = note
    ? `Follow the author's note: ${quote(note, 300)}`
    : "Settle first what the author's veto asks to change"
  const rest = split.subgoals.slice(0, 5).map((s) => ({
    text: s.text,
    dependsOn: [0, ...s.dependsOn.map((d) => d + 1)],
  }))
  const did = note
    ? 'made the note the first step, which the others wait for (the offline model cannot rework steps by what a note means)'
    : 'made a first step of settling what the veto asks to change'
  return { subgoals: [{ text, dependsOn: [] }, ...rest], why: split.why, did }
}

/** The same goal in two steps. */
function fewerSteps(goal: string): Split {
  const list = partsOf(goal)
  const own = stageOf(goal)
  if (own?.stage === 'work') return fill(own.subject, WORK[0]!)
  if (!list) return fill(subjectFor(goal), FEWER_STEPS)
  const half = Math.ceil(list.items.length / 2)
  const halves = [list.items.slice(0, half), list.items.slice(half)].map(joinList)
  return byParts(list.head, halves, false)
}

/**
 * A new split after the author's veto, unlike every vetoed one: fewer steps
 * when the latest note asks for them, else the note as the first step (or,
 * with no note, the other pattern); the rationale says which.
 */
function reworked(task: DecomposeTask, options: Split[]): LlmOutputs['decompose'] {
  const vetoed = task.vetoed ?? []
  const note = clause(vetoed.at(-1)?.note ?? '')
  const before = vetoed.at(-1)?.subgoals.length ?? 0
  const fewer = FEWER.test(note) ? fewerSteps(task.path.at(-1) ?? '') : undefined
  const did = `fewer steps, as the note asks: ${fewer?.subgoals.length} instead of ${before}`
  const candidates: Split[] = [
    ...(fewer && fewer.subgoals.length < before ? [{ ...fewer, did }] : []),
    ...options.map((o) =>
      note ? noteFirst(o, note) : { ...o, did: 'proposed the other pattern' },
    ),
    ...options.map((o) => noteFirst(o, '')),
  ]
  const taken = new Set(vetoed.map((v) => key(v.subgoals)))
  const split =
    candidates.find((c) => !taken.has(key(c.subgoals.map((g) => g.text)))) ?? candidates.at(-1)!
  const why = `Reworked after the author's veto${note ? ` (their note: ${quote(note)})` : ''}: ${split.did}.`
  return { subgoals: split.subgoals, rationale: rationale(split, why) }
}

function rationale(split: Split, before = ''): string {
  const ordered = split.subgoals.filter((s) => s.dependsOn.length > 0).length
  const order =
    ordered === 0
      ? 'The steps can run side by side.'
      : `${ordered} of ${split.subgoals.length} steps wait for earlier ones.`
  const text =
    `${before ? `${before} ` : ''}Offline placeholder: a fixed pattern filled with the goal's own words ` +
    `(${split.why}), not an understanding of the goal. ${order} A real model splits by what the goal needs.`
  return text.length <= MAX_RATIONALE ? text : `${text.slice(0, MAX_RATIONALE - 1)}…`
}

export function offlineDecompose(task: DecomposeTask, seed: string): LlmOutputs['decompose'] {
  const options = splits(task.path.at(-1) ?? '', `${seed}\n${task.depth}`)
  if (task.vetoed?.length) return reworked(task, options)
  return { subgoals: options[0]!.subgoals, rationale: rationale(options[0]!) }
}
