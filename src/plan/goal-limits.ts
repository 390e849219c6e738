/**
 * Which root goals count: limits per author, decided from the record set
 * alone, so every peer applies them the same way whatever the arrival order.
 * A goal that does not count is held: no peer derives its tree, so none
 * decomposes it, works on it or shows it as live. PROTOCOL.md §5.11 lists
 * the rules with the attacks they stop.
 *
 * An author is a PeerId, or (since version 7, given `authorOf` from the
 * room's membership) the member it acts for: a member's five tabs share one
 * member's limits. Each author's root goals are taken in (createdAt, id) order; a goal counts
 * only if, among that author's goals before it that count,
 * - fewer than GOALS_PER_AUTHOR_PER_WINDOW have a createdAt within
 *   GOAL_RATE_WINDOW_MS before (or equal to) its own, and
 * - fewer than MAX_OPEN_GOALS_PER_AUTHOR are still open (not done, failed or
 *   cancelled).
 * Stops: a member flooding the room with goals that every tab would spend
 * its owner's key on. createdAt is the author's word, so a liar can spread
 * goals over past minutes and pass the rate rule; the open-goal rule does
 * not depend on any clock, so a liar still has at most that many live goals.
 * (A backdated goal takes the place of the author's own latest open goal,
 * which waits again: it can only hurt its own author's plans.)
 */
import type { GoalRecord } from '../protocol/records'
import {
  GOAL_RATE_WINDOW_MS,
  GOALS_PER_AUTHOR_PER_WINDOW,
  MAX_OPEN_GOALS_PER_AUTHOR,
} from '../protocol/limits'

export interface GoalLimits {
  perWindow: number
  windowMs: number
  maxOpen: number
}

export const GOAL_LIMITS: GoalLimits = {
  perWindow: GOALS_PER_AUTHOR_PER_WINDOW,
  windowMs: GOAL_RATE_WINDOW_MS,
  maxOpen: MAX_OPEN_GOALS_PER_AUTHOR,
}

/** The total order every peer sorts root goals by: creation time, then id. */
export function byCreation(a: GoalRecord, b: GoalRecord): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/**
 * Split root goals into those that count and those held by the limits.
 * `isOpen` is asked only about goals that count, in each author's order
 * (the caller derives a goal's tree when asked; a held goal is never
 * derived). Both lists come back in (createdAt, id) order.
 */
export function countedRoots(
  roots: Iterable<GoalRecord>,
  isOpen: (root: GoalRecord) => boolean,
  limits: GoalLimits = GOAL_LIMITS,
  authorOf: (from: string) => string = (from) => from,
): { counted: GoalRecord[]; held: GoalRecord[] } {
  const byAuthor = new Map<string, GoalRecord[]>()
  for (const root of roots) {
    const author = authorOf(root.from)
    const list = byAuthor.get(author)
    if (list) list.push(root)
    else byAuthor.set(author, [root])
  }
  const counted: GoalRecord[] = []
  const held: GoalRecord[] = []
  for (const goals of byAuthor.values()) {
    goals.sort(byCreation)
    const mine: GoalRecord[] = []
    let open = 0
    for (const goal of goals) {
      const recent = mine.filter((g) => g.createdAt > goal.createdAt - limits.windowMs).length
      if (recent >= limits.perWindow || open >= limits.maxOpen) {
        held.push(goal)
        continue
      }
      mine.push(goal)
      counted.push(goal)
      if (isOpen(goal)) open++
    }
  }
  return { counted: counted.sort(byCreation), held: held.sort(byCreation) }
}
