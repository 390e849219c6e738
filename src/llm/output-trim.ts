/**
 * Replies a little over the protocol's limits, trimmed rather than asked
 * again (issue 44): a retry costs a whole call, and these slips have one
 * obvious fix. Each trim leaves a note for the call log. What is trimmed
 * then passes the same zod schema as any reply (schemas.ts), so nothing
 * over a limit (src/protocol/limits.ts) ever leaves runLlmTask.
 *
 * - Commentary (a proposal's rationale, a score's notes) is cut at a word
 *   boundary whatever its length: it explains, the plan does not depend on
 *   its last words.
 * - A list of subgoals at most EXTRA_SUBGOALS too long loses its last ones:
 *   the model split along the lines asked, a little too finely. Dropping
 *   the last keeps every dependency valid (they point only backwards).
 * - A subgoal's text or a deliverable a little over (TEXT_OVERRUN) is cut at
 *   a word boundary; far over, the model ignored the limit, and the error
 *   goes back to it instead.
 *
 * Pure: a parsed reply in, a trimmed copy and notes out.
 */
import {
  MAX_NOTES,
  MAX_OUTPUT,
  MAX_RATIONALE,
  MAX_SUBGOAL_TEXT,
  MAX_SUBGOALS,
} from '../protocol/limits'
import type { LlmTaskKind } from './types'

/** Subgoals past MAX_SUBGOALS that are dropped rather than sent back: 7 or 8 for 6. */
export const EXTRA_SUBGOALS = 2

/**
 * How far over its limit a subgoal text or a deliverable may run and still
 * be trimmed: a quarter. Past that the cut would lose too much of its meaning.
 */
export const TEXT_OVERRUN = 0.25

/** A cut looks back this far for a space, so it does not split a word; a longer word is cut. */
const WORD_LOOKBACK = 80

/** Marks a trimmed text: a reader sees it did not end there. */
const ELLIPSIS = '…'

/** `text` cut to at most `max` characters at a word boundary, with an ellipsis. */
export function trimAtWord(text: string, max: number): string {
  if (text.length <= max) return text
  const room = text.slice(0, max - ELLIPSIS.length)
  const space = room.search(/\s\S*$/)
  const cut = space >= room.length - WORD_LOOKBACK && space > 0 ? room.slice(0, space) : room
  return `${cut.trimEnd()}${ELLIPSIS}`
}

type Obj = Record<string, unknown>

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v)

interface Trim {
  value: unknown
  notes: string[]
}

/** Trims obj[key] when it is a string over max (and within `overrun` of it, when given). */
function trimField(
  obj: Obj,
  key: string,
  max: number,
  notes: string[],
  label: string,
  overrun?: number,
): void {
  const raw = obj[key]
  if (typeof raw !== 'string') return
  const text = raw.trim()
  if (text.length <= max) return
  if (overrun !== undefined && text.length > max * (1 + overrun)) return
  obj[key] = trimAtWord(text, max)
  notes.push(`trimmed ${label} from ${text.length} to ${max} characters at a word boundary`)
}

export function trimToLimits(kind: LlmTaskKind, raw: unknown): Trim {
  if (!isObj(raw)) return { value: raw, notes: [] }
  const obj: Obj = { ...raw }
  const notes: string[] = []
  switch (kind) {
    case 'decompose': {
      const subgoals = obj.subgoals
      if (Array.isArray(subgoals)) {
        let list = subgoals
        if (list.length > MAX_SUBGOALS && list.length <= MAX_SUBGOALS + EXTRA_SUBGOALS) {
          notes.push(`trimmed subgoals from ${list.length} to ${MAX_SUBGOALS} (dropped the last)`)
          list = list.slice(0, MAX_SUBGOALS)
        }
        obj.subgoals = list.map((item: unknown, i) => {
          if (!isObj(item)) return item
          const sub = { ...item }
          trimField(sub, 'text', MAX_SUBGOAL_TEXT, notes, `subgoal ${i}'s text`, TEXT_OVERRUN)
          return sub
        })
      }
      trimField(obj, 'rationale', MAX_RATIONALE, notes, 'the rationale')
      break
    }
    case 'score':
      trimField(obj, 'notes', MAX_NOTES, notes, 'the notes')
      break
    case 'execute':
    case 'rollup':
      trimField(obj, 'output', MAX_OUTPUT, notes, 'the output', TEXT_OVERRUN)
      break
  }
  return { value: obj, notes }
}
