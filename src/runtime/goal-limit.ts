/**
 * The limits per author (src/plan/goal-limits.ts), as a tab's person meets
 * them: a goal they submit over the limits is refused with the reason,
 * rather than published to wait where no tab shows it.
 */
import { wouldBeHeld } from '../plan/derive'
import { PlanState } from '../plan/state'
import type { PlanMembership } from '../plan/members'
import {
  AUTHOR_QUOTA,
  GOALS_PER_AUTHOR_PER_WINDOW,
  MAX_OPEN_GOALS_PER_AUTHOR,
} from '../protocol/limits'
import type { GoalRecord, PlanRecord } from '../protocol/records'

/** This peer already holds as many of its own records of a kind as any author may (limits.ts). */
export class AuthorQuotaError extends Error {
  constructor(kind: string) {
    super(
      `this peer has the most ${kind} records one author may have in a room ` +
        `(${AUTHOR_QUOTA[kind as keyof typeof AUTHOR_QUOTA]}): archive finished goals first`,
    )
    this.name = 'AuthorQuotaError'
  }
}

export class GoalLimitError extends Error {
  constructor() {
    super(
      `a room member may have ${MAX_OPEN_GOALS_PER_AUTHOR} goals open at once and start ` +
        `${GOALS_PER_AUTHOR_PER_WINDOW} a minute: wait for one of yours to finish, or cancel one`,
    )
    this.name = 'GoalLimitError'
  }
}

/**
 * Whether `goal`, added to these records, would be held by the limits; with
 * the room's membership they count per member (a person's five tabs share
 * one member's limits).
 */
export function ownGoalWouldWait(
  records: Iterable<PlanRecord>,
  goal: GoalRecord,
  membership?: PlanMembership,
): boolean {
  const state = new PlanState()
  for (const record of records) state.add(record)
  return wouldBeHeld(state, goal, membership ? { membership } : {})
}
