/**
 * The offline placeholder's subgoal titles: the goal's own words, whole,
 * then a colon and one fixed stage ("Plan a trip to Japan: produce the
 * result"). Always grammatical, never a fragment of the goal; the scorer
 * reads a stage back to know what kind of step it is.
 */
import { MAX_SUBGOAL_TEXT } from '../../protocol/limits'
import type { Capability } from '../types'
import { clause } from './words'

/** What each stage adds after the goal's words. None contains "and" or a comma (colonList). */
export const STAGES = {
  scope: 'set out what the result must cover',
  inputs: 'gather what the work needs',
  work: 'produce the result',
  check: 'check the result against the goal',
  summary: 'write a short summary of the outcome',
  outline: 'outline the parts of the result',
  fill: 'write out each part of the outline',
  draft: 'draft a first version',
  revise: 'revise the first version',
  fit: 'check that the parts fit together',
} as const
export type Stage = keyof typeof STAGES

/** Stages that do the goal's own work, so they need what the goal needs (code, live data, text). */
const DOES_THE_WORK: ReadonlySet<Stage> = new Set(['work', 'fill', 'draft', 'revise'])

/** Room left in a title for the goal's words, after the longest stage. */
const MAX_SUBJECT = MAX_SUBGOAL_TEXT - 50

/** The goal's words for a title: whole, or its first sentence, or (far too long) "This goal". */
export function subjectFor(goal: string): string {
  const whole = clause(goal)
  if (whole.length <= MAX_SUBJECT) return whole || 'This goal'
  const first = clause(whole.split(/(?<=[.!?])\s/)[0] ?? '')
  return first.length <= MAX_SUBJECT ? first : 'This goal'
}

export function title(subject: string, stage: Stage): string {
  return `${subject}: ${STAGES[stage]}`
}

/** The stage and subject of a title the offline decomposer wrote; null for anyone else's. */
export function stageOf(text: string): { subject: string; stage: Stage } | null {
  const t = clause(text)
  for (const [stage, phrase] of Object.entries(STAGES) as [Stage, string][]) {
    if (t.endsWith(`: ${phrase}`)) return { subject: t.slice(0, -phrase.length - 2), stage }
  }
  return null
}

/** Writing about something (its documentation, a guide to it) is writing, whatever it is about. */
const WRITING =
  /\b(document\w*|docs|readme|guide|manual|tutorial|explain\w*|describe|essay|article)\b/i
/** Words that name a computation or a program. */
const COMPUTING =
  /\b(compute|calculate|count|sum|sort|program|script|code|coding|function|algorithm|implement\w*|primes?|average|javascript|typescript)\b/i
/** Words that name facts only a live source has. */
const LIVE =
  /\b(prices?|fares?|availability|weather|exchange rates?|news|latest|current|opening hours|bookings?|reserv\w+)\b/i

/** What a step needs, from its words alone: the offline model cannot know more. */
export function capabilityOf(text: string): Capability {
  const own = stageOf(text)
  if (own && !DOES_THE_WORK.has(own.stage)) return 'can_write_text'
  if (WRITING.test(text)) return 'can_write_text'
  if (COMPUTING.test(text)) return 'can_run_code'
  if (LIVE.test(text)) return 'can_query_api'
  return 'can_write_text'
}

/** When the room is unknown or has no executor yet: what the offline executors offer by default. */
export const DEFAULT_ROOM: readonly Capability[] = ['can_write_text', 'can_run_code']

/**
 * The capability a step gets in this room: what it needs when some executor
 * offers it, else written work (code or a lookup can be written out), so it
 * does not wait for an executor nobody runs.
 */
export function fitToRoom(needed: Capability, room: readonly Capability[] | undefined): Capability {
  const offered = room && room.length > 0 ? room : DEFAULT_ROOM
  if (offered.includes(needed)) return needed
  return offered.includes('can_write_text') ? 'can_write_text' : offered[0]!
}
