/**
 * The author vetoed a split, with a note (issue 27; issue 43: "a veto
 * bringing back the identical split"). The offline decomposer then never
 * proposes a split like a vetoed one, and reshapes its new split by the
 * note: fewer steps, more steps, without something, or the note's own
 * request as a step of its own. The rationale says what changed and why.
 */
import type { SubgoalDraft } from '../types'
import { MAX_SUBGOAL_TEXT, MAX_SUBGOALS, MIN_SUBGOALS } from '../../protocol/limits'
import { ACTION_VERBS, capitalise, clause, clip, contentStems, lowerFirst, splitVerb } from './text'

/** A split sharing at least this fraction of its subgoals with a vetoed one counts as the same split. */
const SAME_SPLIT = 0.6
/** "Fewer steps" leaves this many. */
const FEWER_TARGET = 3
const MAX_NOTE_QUOTED = 200
/** A spare step sharing this fraction of its words with a step already there adds nothing. */
const NEW_STEP_OVERLAP = 0.5

const FEWER =
  /\b(fewer|less steps|too many|simpler|simplify|merge|combine|smaller|too (long|detailed|granular|fine))\b/i
const MORE =
  /\b(more (steps|detail|subgoals|specific)|too (few|coarse|broad|vague|big)|finer|break (it )?down|split (it )?further)\b/i
const WITHOUT =
  /\b(?:no|skip|drop|without|remove|avoid|not|don't need|do not need)\s+(?:the\s+|any\s+)?([^,.;]+)/i

const norm = (text: string): string => text.trim().toLowerCase().replace(/\s+/g, ' ')

/** True when `split` is (nearly) a vetoed split: the author said no to it. */
export function isLikeVetoed(split: readonly SubgoalDraft[], vetoed: readonly string[]): boolean {
  if (vetoed.length === 0) return false
  const before = new Set(vetoed.map(norm))
  const shared = split.filter((s) => before.has(norm(s.text))).length
  return shared / Math.max(split.length, vetoed.length) >= SAME_SPLIT
}

/** Keep the subgoals at `keep`, renumbering dependencies (a dropped one's are inherited). */
function keepOnly(subgoals: readonly SubgoalDraft[], keep: readonly boolean[]): SubgoalDraft[] {
  const resolved: Set<number>[] = []
  subgoals.forEach((s, i) => {
    const deps = new Set<number>()
    for (const d of s.dependsOn) {
      if (keep[d]) deps.add(d)
      else for (const inherited of resolved[d] ?? []) deps.add(inherited)
    }
    resolved[i] = deps
  })
  const index = new Map<number, number>()
  const out: SubgoalDraft[] = []
  subgoals.forEach((s, i) => {
    if (!keep[i]) return
    index.set(i, out.length)
    const deps = [...(resolved[i] ?? [])].map((d) => index.get(d) ?? -1).filter((d) => d >= 0)
    out.push({ text: s.text, dependsOn: deps.sort((a, b) => a - b) })
  })
  return out
}

function fewer(subgoals: SubgoalDraft[]): { subgoals: SubgoalDraft[]; did: string } {
  const target = Math.max(MIN_SUBGOALS, Math.min(FEWER_TARGET, subgoals.length - 1))
  const head = subgoals.slice(0, target - 1)
  const tail = subgoals.slice(target - 1)
  const merged = clip(
    tail.map((s, i) => (i === 0 ? clause(s.text) : lowerFirst(clause(s.text)))).join(', then '),
    MAX_SUBGOAL_TEXT,
  )
  const deps = [...new Set(tail.flatMap((s) => s.dependsOn))].filter((d) => d < target - 1)
  return {
    subgoals: [...head, { text: merged, dependsOn: deps.sort((a, b) => a - b) }],
    did: `merged the last ${tail.length} steps into one, ${target} in all`,
  }
}

function more(
  subgoals: SubgoalDraft[],
  spare: readonly SubgoalDraft[],
): { subgoals: SubgoalDraft[]; did: string } {
  // a spare step counts as new when it shares under half its words with every step there
  const stemsOf = (text: string) => [...contentStems(text)]
  const isNew = (text: string) =>
    subgoals.every((s) => {
      const a = stemsOf(text)
      const b = new Set(stemsOf(s.text))
      return a.filter((w) => b.has(w)).length < a.length * NEW_STEP_OVERLAP
    })
  const added = spare.filter((s) => isNew(s.text)).slice(0, MAX_SUBGOALS - subgoals.length)
  if (added.length === 0) return asStep(subgoals, 'Break the largest step into smaller ones')
  return {
    subgoals: [...subgoals, ...added.map((s) => ({ text: s.text, dependsOn: [] }))],
    did: `added ${added.length} more specific step${added.length > 1 ? 's' : ''}`,
  }
}

function without(
  subgoals: SubgoalDraft[],
  what: string,
): { subgoals: SubgoalDraft[]; did: string } {
  const stems = contentStems(what)
  const keep = subgoals.map((s) => ![...contentStems(s.text)].some((w) => stems.has(w)))
  if (keep.filter(Boolean).length < MIN_SUBGOALS || keep.every(Boolean))
    return asStep(subgoals, `Leave out ${what.trim()}`)
  return {
    subgoals: keepOnly(subgoals, keep),
    did: `dropped the steps about ${what.trim()}`,
  }
}

/** The note as a step of its own, first, since it constrains the rest. */
export function asStep(
  subgoals: SubgoalDraft[],
  note: string,
): { subgoals: SubgoalDraft[]; did: string } {
  const first = note.split(/\s+/)[0]?.toLowerCase() ?? ''
  const text = clip(
    ACTION_VERBS.has(first) || splitVerb(note).verb
      ? capitalise(clause(note))
      : `Make the plan follow the author's note: ${clause(note)}`,
    MAX_SUBGOAL_TEXT,
  )
  const kept = subgoals.length >= MAX_SUBGOALS ? subgoals.slice(0, MAX_SUBGOALS - 1) : subgoals
  const shifted = kept.map((s) => ({
    text: s.text,
    dependsOn: [0, ...s.dependsOn.filter((d) => d < kept.length).map((d) => d + 1)],
  }))
  return {
    subgoals: [{ text, dependsOn: [] }, ...shifted],
    did: 'made the note a step of its own, which the others follow',
  }
}

/** Reshape a fresh split by the author's note. `spare` holds subgoals of other splits, for "more". */
export function followNote(
  subgoals: SubgoalDraft[],
  note: string,
  spare: readonly SubgoalDraft[],
): { subgoals: SubgoalDraft[]; did: string } {
  const text = note.trim()
  if (text === '') return { subgoals, did: 'chose a different split' }
  if (FEWER.test(text) && subgoals.length > MIN_SUBGOALS) return fewer(subgoals)
  if (MORE.test(text) && subgoals.length < MAX_SUBGOALS) return more(subgoals, spare)
  const w = WITHOUT.exec(text)
  if (w?.[1]) return without(subgoals, w[1])
  return asStep(subgoals, text)
}

export function quoteNote(note: string): string {
  return clip(note.replace(/\s+/g, ' ').trim(), MAX_NOTE_QUOTED)
}
