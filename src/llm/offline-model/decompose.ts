/**
 * Offline decomposition. A top-level goal is matched to a goal family
 * (catalog.ts) and split by one of its variants; a deeper goal is split by
 * the list it names ("documents, insurance and money") or by its activity
 * (activities.ts); anything else gets a generic split built from the goal's
 * own words. The seed picks the variant and which optional steps to keep,
 * so two decomposer peers usually propose different, equally sensible splits.
 */
import type { LlmOutputs, LlmTask, SubgoalDraft } from '../types'
import { MAX_RATIONALE, MAX_SUBGOAL_TEXT, MAX_SUBGOALS } from '../../protocol/limits'
import { activityOf } from './activities'
import { familyOf, type StepSpec, type Variant } from './catalog'
import { capabilityOf, DEFAULT_ROOM } from './classify'
import { rngFor, type Rng } from './rng'
import { asStep, followNote, isLikeVetoed, quoteNote } from './veto'
import {
  ACTION_VERBS,
  activityPhrase,
  capitalise,
  clause,
  clip,
  listItems,
  lowerFirst,
  objectOf,
  placeOf,
  splitVerb,
  theObject,
} from './text'

type DecomposeTask = Extract<LlmTask, { kind: 'decompose' }>

/** Chance of dropping each optional step: enough variety between peers, rarely too thin. */
const DROP_OPTIONAL_P = 0.4
/** Chance a deeper goal gets the generic split even when a specific one exists: more variety. */
const GENERIC_ANYWAY_P = 0.1
/** A list variant takes at most this many items, leaving room for a final check step. */
const MAX_LIST_ITEMS = MAX_SUBGOALS - 1
/** Placeholders are clipped so a filled template stays well under the subgoal limit. */
const MAX_PLACEHOLDER = 90

export type Placeholders = Record<string, string | undefined>

export function placeholders(path: readonly string[]): Placeholders {
  const full = path.at(-1) ?? ''
  // "Sort out transport: flights, passes and transfers" is about "sort out transport".
  const head = full.split(':')[0] ?? ''
  const goal = head.trim().split(/\s+/).length >= 2 ? head : full
  const place = placeOf(path)
  return {
    the: theObject(goal, MAX_PLACEHOLDER),
    obj: objectOf(goal, MAX_PLACEHOLDER),
    act: activityPhrase(goal, MAX_PLACEHOLDER),
    goal: lowerFirst(clip(clause(goal), MAX_PLACEHOLDER)),
    // "to renovate the kitchen", or for a goal without a verb "to get the new shed done"
    to: splitVerb(goal).verb
      ? `to ${lowerFirst(clip(clause(goal), MAX_PLACEHOLDER))}`
      : `to get ${theObject(goal, MAX_PLACEHOLDER)} done`,
    place,
    move: place ? `the move to ${place}` : 'the move',
  }
}

/** Fill {name} and {name|fallback}; an unknown name without fallback becomes "it". */
export function fill(template: string, values: Placeholders): string {
  return template.replace(/\{(\w+)(?:\|([^}]*))?\}/g, (_, name: string, fallback?: string) => {
    const value = values[name]
    if (value !== undefined && value !== '') return value
    if (name === 'place') return fallback ?? 'the destination'
    return fallback ?? 'it'
  })
}

/** Keep the chosen steps; a dependency on a dropped step is inherited from that step. */
function select(
  steps: readonly StepSpec[],
  keep: boolean[],
): { template: string; after: number[] }[] {
  const resolved: Set<number>[] = []
  steps.forEach(([, after = []], i) => {
    const deps = new Set<number>()
    for (const d of after) {
      if (d >= i) continue // defensive: templates only point backwards
      if (keep[d]) deps.add(d)
      else for (const inherited of resolved[d] ?? []) deps.add(inherited)
    }
    resolved.push(deps)
  })
  const newIndex = new Map<number, number>()
  const out: { template: string; after: number[] }[] = []
  steps.forEach(([template], i) => {
    if (!keep[i]) return
    newIndex.set(i, out.length)
    const after = [...(resolved[i] ?? [])].map((d) => newIndex.get(d) ?? -1).filter((d) => d >= 0)
    out.push({ template, after: after.sort((a, b) => a - b) })
  })
  return out
}

function materialise(variant: Variant, values: Placeholders, rng: Rng): SubgoalDraft[] {
  const steps = variant.steps.slice(0, MAX_SUBGOALS)
  const keep = steps.map(([, , optional]) => !(optional === true && rng.chance(DROP_OPTIONAL_P)))
  // Never fewer than three steps when the variant has them: two is usually too coarse.
  for (
    let i = steps.length - 1;
    keep.filter(Boolean).length < Math.min(3, steps.length) && i >= 0;
    i--
  )
    keep[i] = true
  // Two templates can fill to the same text; merge them so sibling texts stay distinct.
  const indexOfText = new Map<string, number>()
  const newIndex: number[] = []
  const out: SubgoalDraft[] = []
  for (const { template, after } of select(steps, keep)) {
    const text = clip(capitalise(fill(template, values)), MAX_SUBGOAL_TEXT)
    const key = text.toLowerCase()
    const existing = indexOfText.get(key)
    if (existing !== undefined) {
      newIndex.push(existing)
      continue
    }
    const deps = [...new Set(after.map((d) => newIndex[d] ?? -1))].filter(
      (d) => d >= 0 && d < out.length,
    )
    indexOfText.set(key, out.length)
    newIndex.push(out.length)
    out.push({ text, dependsOn: deps.sort((a, b) => a - b) })
  }
  return out
}

/** An item that is itself an action ("shortlist the places", "adjust the offer"). */
function isAction(item: string): boolean {
  const ws = item.split(/\s+/)
  // a lone word ("setup", "transfers") is a thing, not an action
  return ws.length >= 2 && (ACTION_VERBS.has(ws[0]?.toLowerCase() ?? '') || !!splitVerb(item).verb)
}

/**
 * "Make the bookings: flights, stays and timed tickets" -> "Make the bookings:
 * flights", ...; "Prepare documents, insurance and money" -> "Prepare
 * documents", ... Each title is a whole phrase: the head's verb is not glued
 * onto items it does not govern ("Make stays", "Launch adjust the offer").
 */
function listVariant(goal: string, items: string[]): Variant {
  const text = clause(goal)
  const colon = text.indexOf(':')
  const head = colon >= 0 ? text.slice(0, colon).trim() : ''
  const { verb } = splitVerb(text)
  const title = (item: string): string => {
    if (isAction(item)) return capitalise(item)
    if (head) return `${capitalise(head)}: ${item}`
    return `${verb ? capitalise(verb) : 'Handle'} ${item}`
  }
  const steps: StepSpec[] = items.slice(0, MAX_LIST_ITEMS).map((item) => [title(item)])
  steps.push([
    'Check that these parts fit together and nothing is missing',
    steps.map((_, i) => i),
    true,
  ])
  return {
    why: 'The goal names its own parts, so each part becomes a subgoal; a final check ties them together.',
    steps,
  }
}

const GENERIC: readonly Variant[] = [
  {
    why: 'Scope first, then the inputs, then the work itself, then a check against the goal.',
    steps: [
      ['Define the result wanted from {act}, the constraints and a deadline'],
      ['Gather what {act} needs: information, materials, tools and people', [0]],
      ['Carry out the main work of {act}', [1]],
      ['Check the result against the goal and close any gaps', [2], true],
    ],
  },
  {
    why: 'There is more than one way to do this, so the split compares options before committing.',
    steps: [
      ['List the ways {to} and the criteria for choosing between them'],
      ['Compare those options against the criteria and choose one', [0]],
      ['Carry out the chosen approach {to}', [1]],
      ['Review the outcome and write down follow-ups', [2], true],
    ],
  },
  {
    why: 'Treats the goal as a small project: tasks, people and resources, a schedule, then execution.',
    steps: [
      ['Break {act} into tasks and estimate the time each needs'],
      ['Work out who and what {act} needs, and line them up'],
      ['Put the tasks on a calendar with a deadline for each', [0, 1]],
      ['Work through the tasks in order and track what is done', [2]],
    ],
  },
]

function candidates(task: DecomposeTask): Variant[] {
  const goal = task.path.at(-1) ?? ''
  if (task.depth <= 0 || task.path.length <= 1) {
    const family = familyOf(goal)
    return family ? [...family.variants] : []
  }
  const out: Variant[] = []
  const items = listItems(goal)
  if (items.length >= 2) out.push(listVariant(goal, items))
  const activity = activityOf(goal)
  if (activity) out.push(activity.variant)
  return out
}

function rationale(variant: Variant, subgoals: SubgoalDraft[]): string {
  const ordered = subgoals.filter((s) => s.dependsOn.length > 0).length
  const order =
    ordered === 0
      ? 'The subgoals are independent and can run in parallel.'
      : `${ordered} of ${subgoals.length} subgoals wait for earlier ones; the rest can start at once.`
  return clip(`${variant.why} ${order}`, MAX_RATIONALE)
}

/**
 * How many of a variant's steps need something the room does not offer
 * (issue 43): the decomposer prefers splits whose leaves someone present
 * can do. Unknown or empty room: text and code, not live lookups.
 */
function stepsNobodyCanDo(variant: Variant, values: Placeholders, task: DecomposeTask): number {
  const room = task.roomCapabilities
  const offered = room && room.length > 0 ? room : DEFAULT_ROOM
  return variant.steps.filter(([t]) => !offered.includes(capabilityOf(fill(t, values), task.path)))
    .length
}

/**
 * Variants within one step of the most doable: a strong preference that
 * still leaves decomposers different splits to propose.
 */
const DOABLE_SLACK = 1

function preferDoable(pool: readonly Variant[], values: Placeholders, task: DecomposeTask) {
  const missing = pool.map((v) => stepsNobodyCanDo(v, values, task))
  const least = Math.min(...missing)
  return pool.filter((_, i) => (missing[i] ?? 0) <= least + DOABLE_SLACK)
}

/** A split after the author's veto: unlike every vetoed one, reshaped by the latest note. */
function reworked(
  task: DecomposeTask,
  seed: string,
  specific: readonly Variant[],
  values: Placeholders,
): LlmOutputs['decompose'] {
  const vetoed = task.vetoed ?? []
  const key = [String(task.depth), ...task.path]
  const drafts = [...specific, ...GENERIC].map((variant, i) => ({
    variant,
    subgoals: materialise(variant, values, rngFor('decompose-veto', seed, String(i), ...key)),
  }))
  const fresh = drafts.filter(
    (d) => d.subgoals.length >= 2 && !vetoed.some((v) => isLikeVetoed(d.subgoals, v.subgoals)),
  )
  const pool = fresh.length > 0 ? fresh : drafts
  const own = pool.filter((d) => specific.includes(d.variant))
  const rng = rngFor('decompose-veto', seed, ...vetoed.map((v) => v.note), ...key)
  const chosen = rng.pick(own.length > 0 ? own : pool)
  const note = vetoed.at(-1)?.note ?? ''
  const spare = drafts.filter((d) => d !== chosen).flatMap((d) => d.subgoals)
  let { subgoals, did } = followNote(chosen.subgoals, note, spare)
  // the note changed nothing that tells it from a vetoed split: make the note a step
  if (vetoed.some((v) => isLikeVetoed(subgoals, v.subgoals)))
    ({ subgoals, did } = asStep(
      subgoals,
      note || 'Take a different approach from the vetoed split',
    ))
  const why = note.trim()
    ? `Reworked after the author's veto ("${quoteNote(note)}"): ${did}.`
    : `Reworked after the author's veto: ${did}.`
  return { subgoals, rationale: clip(`${why} ${chosen.variant.why}`, MAX_RATIONALE) }
}

export function offlineDecompose(task: DecomposeTask, seed: string): LlmOutputs['decompose'] {
  const specific = candidates(task)
  const values = placeholders(task.path)
  if (task.vetoed?.length) return reworked(task, seed, specific, values)
  const rng = rngFor('decompose', seed, String(task.depth), ...task.path)
  const useGeneric = specific.length === 0 || (task.depth > 0 && rng.chance(GENERIC_ANYWAY_P))
  const variant = rng.pick(preferDoable(useGeneric ? GENERIC : specific, values, task))
  let subgoals = materialise(variant, values, rng)
  // A degenerate goal (empty, or words that fill every template alike) still gets a valid split.
  if (subgoals.length < 2) subgoals = materialise(GENERIC[0]!, placeholders(['this goal']), rng)
  return { subgoals, rationale: rationale(variant, subgoals) }
}
