/**
 * A tab's consent to spend its owner's key: which root goals this peer takes
 * new LLM work for (splitting, scoring, deciding, executing, rolling up).
 *
 * Set by the person (whose goals: anyone in the room, or only this browser's
 * tabs) and by the budget (an hourly cap pauses the role; a per-goal cap
 * stops work on that goal). Work already running may finish: only new work
 * is refused. Pure; the runtime hands it in with the `set-consent` command.
 */
import type { DerivedPlan, DerivedGoal } from '../plan/derive'
import type { TaskState } from '../plan/tasks'
import { derived } from './room-view'
import type { PeerState, Work } from './peer'

export interface Consent {
  /** authors (root goals' `from`) whose goals this peer works on; null: anyone in the room */
  authors: readonly string[] | null
  /** no new LLM work at all (an hourly cap was reached) */
  paused: boolean
  /** root goal ids this peer takes no new work for (their per-goal cap was reached) */
  skipGoals: readonly string[]
}

/** Anyone's goals, nothing paused: what a peer does unless told otherwise. */
export const OPEN_CONSENT: Consent = { authors: null, paused: false, skipGoals: [] }

/** The goal filter: does this peer work on goals written by `author`? */
export function acceptsAuthor(authors: readonly string[] | null, author: string): boolean {
  return authors === null || authors.includes(author)
}

/** May this peer start new LLM work for (a subgoal of) this goal? */
export function mayWorkOn(consent: Consent | undefined, goal: DerivedGoal | undefined): boolean {
  if (!consent) return true
  if (!goal || consent.paused) return false
  return acceptsAuthor(consent.authors, goal.createdBy) && !consent.skipGoals.includes(goal.root)
}

/** The goal an exclusive task belongs to: the goal it decides or rolls up, or the leaf's goal. */
export function goalOfTask(plan: DerivedPlan, task: TaskState): DerivedGoal | undefined {
  if (task.type === 'execute') return plan.leaves.get(task.id)?.goal
  // a redo below gives a roll-up task another subject than its goal id (plan/steering.ts)
  return task.type === 'rollup' ? plan.rollups.get(task.id) : plan.goals.get(task.subject)
}

/** The root goal a piece of this peer's work is for (what its budget counts it against). */
export function rootOfWork(peer: PeerState, work: Work): string | null {
  const plan = derived(peer)
  if (work.task !== undefined) {
    const task = plan.tasks.get(work.task)
    return (task && goalOfTask(plan, task)?.root) ?? null
  }
  const goal = work.kind === 'score' ? peer.plan.proposals.get(work.subject)?.goal : work.subject
  return plan.goals.get(goal ?? '')?.root ?? null
}
