/**
 * Offline judgement of a subgoal, as a scorer gives it in the call that
 * scores its split (protocol version 7): is it one concrete deliverable, and
 * what does producing it need? Both come from the subgoal's text and depth:
 * broad verbs ("plan", "organise"), lists of several things and long
 * sentences make a subgoal coarse; deliverable words ("list", "table",
 * "draft") make it concrete; and the deeper a subgoal sits, the more
 * coarseness it takes to be split again, so trees stay a sensible size.
 */
import type { Judgement } from '../../protocol/records'
import type { Capability, LlmTask } from '../types'
import { listItems, words } from './text'

type ScoreTask = Extract<LlmTask, { kind: 'score' }>

const BROAD_START =
  /^(plan|organi[sz]e|build|develop|prepare|handle|sort out|manage|run|launch|learn|establish|coordinate|arrange|set up|make the bookings|get ready|work through|carry out|design the architecture|research the market)\b/i
const CONCRETE_START =
  /^(write|draft|list|make a|make an|compare|calculate|estimate|book|reserve|send|email|sketch|outline|summari[sz]e|define|decide|pick|choose|record|set a|get quotes|buy|order|implement|test|review|check|add|find|draw up|gather|collect|identify|track|schedule|put)\b/i
const DELIVERABLE =
  /\b(list|checklist|table|outline|email|invitations?|budget|timeline|schedule|itinerary|script|function|template|summary|report|draft|plan document|one-page|inventory|log|forecast|tests?)\b/i
/** Words beyond this make a subgoal read like several steps. */
const LONG_WORDS = 18
/**
 * Coarseness at which a subgoal is composite, by depth: shallow goals split
 * more readily, and below depth 1 only a very coarse one does, so a depth-3
 * plan stays around ten leaves and the offline first run ends in a minute.
 */
const COMPOSITE_AT_DEPTH_1 = 2
const COMPOSITE_DEEPER = 4

export function coarseness(text: string): number {
  let c = 0
  if (BROAD_START.test(text)) c += 2
  const items = listItems(text).length
  if (items >= 4) c += 2
  else if (items >= 2) c += 1
  if (words(text).length > LONG_WORDS) c += 1
  if (CONCRETE_START.test(text)) c -= 1
  if (DELIVERABLE.test(text)) c -= 1
  return c
}

/** Code the executor WRITES (it cannot run it). */
const CODE_STRONG =
  /\b(implement|code|coding|programming|script|refactor|debug|unit tests?|automated tests?|write tests|api endpoints?|endpoints?|backend|frontend|database schema|data model|function|algorithm|continuous integration|ci\b|deploy\w*|prototype)\b/i
/** Needs live data from an API or a search: prices, availability, current facts. */
const LIVE_DATA =
  /^(book|reserve)\b|\b(book (the|a|an|flights?|tickets?|hotels?|rooms?|stays?)|booking|prices?|fares?|flights?|availability|available|weather|exchange rates?|current (prices|rates|events)|latest|live|real-time|quotes?|reviews|tickets?|listings?|venue|hotel|accommodation|stay|timetables?|news|stock|competitors?|market research|research the market|suppliers?|movers|moving compan\w*|neighbourhoods?|neighborhoods?|entry requirements|(collect|find|gather) sources)\b/i
const CODE_WEAK = /\b(app|website|api|software|bot|build the|tool)\b/i

/** In a software project, these verbs mean code. */
const CODE_IN_CONTEXT = /^(test|fix|build|implement|add|integrate|wire)\b/i

/** `context` is the goal path: a "test and fix" step of an app project is code, of a party it is not. */
export function capabilityOf(text: string, context: readonly string[] = []): Capability {
  if (CODE_STRONG.test(text)) return 'can_run_code'
  if (LIVE_DATA.test(text)) return 'can_query_api'
  if (CODE_WEAK.test(text)) return 'can_run_code'
  if (
    CODE_IN_CONTEXT.test(text) &&
    context.some((goal) => CODE_WEAK.test(goal) || CODE_STRONG.test(goal))
  ) {
    return 'can_run_code'
  }
  return 'can_write_text'
}

/** When the room is unknown or has no executor yet: what the offline executors offer by default. */
export const DEFAULT_ROOM: readonly Capability[] = ['can_write_text', 'can_run_code']

/**
 * The capability a leaf gets in this room (issue 43): what it needs when
 * some executor offers it; otherwise written work (code or lookups can be
 * written out as text, with what to run or verify marked), so the leaf does
 * not wait for an executor nobody runs. An empty or unknown room prefers
 * text and code over live lookups.
 */
export function fitToRoom(needed: Capability, room: readonly Capability[] | undefined): Capability {
  const offered = room && room.length > 0 ? room : DEFAULT_ROOM
  if (offered.includes(needed)) return needed
  return offered.includes('can_write_text') ? 'can_write_text' : offered[0]!
}

/**
 * The offline scorer's judgement of subgoal `index` of the split it scores:
 * at the depth cap it is one deliverable anyway; above it, composite when
 * coarse enough for its depth. Its capability fits the room (fitToRoom).
 */
export function offlineJudgement(task: ScoreTask, index: number): Judgement {
  const text = task.subgoals[index]!.text
  const capability = fitToRoom(capabilityOf(text, task.path), task.roomCapabilities)
  if (task.depth >= task.maxDepth) return { atomic: true, capability }
  const threshold = task.depth <= 1 ? COMPOSITE_AT_DEPTH_1 : COMPOSITE_DEEPER
  return { atomic: coarseness(text) < threshold, capability }
}
