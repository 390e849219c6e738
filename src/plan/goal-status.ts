/**
 * One goal, one status (issue 56): the phase a goal is in, its leaves'
 * counts and the words for both, derived once (tree.ts puts them on each
 * GoalView) so that the tree, the goal list, the summary, the role panels,
 * the exports and the terminal all say the same. Pure.
 *
 * The protocol's statuses (derive.ts, PROTOCOL.md §5.9) decide what is
 * settled: a goal is done once its roll-up is written, whatever failed under
 * it (the roll-up notes the failed parts, §5.7), failed when its roll-up
 * failed, and open until then. The phase adds what a person needs to read
 * it: a goal rolled up with failed parts "finished with N failed parts",
 * never plain "done"; a goal whose parts have all settled is waiting for its
 * roll-up, not "in progress".
 */
import type { DerivedGoal } from './derived-types'
import { readyToRollUp } from './derive'
import type { FailureKind, FailureReason } from './why'

export type GoalPhase =
  | 'awaiting-proposals'
  | 'scoring'
  | 'awaiting-approval'
  /** its author paused it: nothing new starts under it */
  | 'paused'
  /** a split is accepted and parts of it are still open or running */
  | 'running'
  /** every part settled; nobody holds the roll-up yet */
  | 'awaiting-rollup'
  | 'rolling-up'
  /** rolled up, every part done */
  | 'complete'
  /** rolled up, some parts failed: the result lacks them */
  | 'partial'
  /** its roll-up failed */
  | 'failed'
  | 'cancelled'

/** The leaves (atomic subgoals) of a goal's subtree, at every depth. */
export interface LeafCounts {
  total: number
  done: number
  failed: number
  /** the failed ones by why they failed (why.ts) */
  failedBy: Record<FailureKind, number>
}

export function noLeaves(): LeafCounts {
  return {
    total: 0,
    done: 0,
    failed: 0,
    failedBy: { attempts: 0, gap: 0, unworked: 0, blocked: 0 },
  }
}

export function goalPhase(goal: DerivedGoal, failedParts: number): GoalPhase {
  switch (goal.status) {
    case 'cancelled':
    case 'awaiting-approval':
      return goal.status
    case 'done':
      return failedParts > 0 ? 'partial' : 'complete'
    case 'failed':
      return 'failed'
    default:
      break
  }
  if (goal.paused) return 'paused'
  if (goal.status !== 'accepted') return goal.status
  if (!readyToRollUp(goal)) return 'running'
  const rollup = goal.rollup
  return rollup.status === 'claimed' && rollup.holder && !rollup.released
    ? 'rolling-up'
    : 'awaiting-rollup'
}

/** What a goal's status words need: its phase and counts, as tree.ts projects them. */
export interface GoalStatusFacts {
  phase: GoalPhase
  proposals: readonly unknown[]
  createdBy: string
  failedParts: number
  rollup: { holder: string | null; why: FailureReason | null }
  /** cancelled because its author was removed from the room (PROTOCOL.md §0.1 rule 7) */
  authorRemoved: boolean
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * A goal's status in words, the same in a tab and in a terminal; `who`
 * names a peer ("you", "…a1b2c3").
 */
export function goalStatusWords(goal: GoalStatusFacts, who: (peer: string) => string): string {
  switch (goal.phase) {
    case 'awaiting-proposals':
      return 'Awaiting proposals'
    case 'scoring':
      return `Scoring ${plural(goal.proposals.length, 'proposal')}`
    case 'awaiting-approval':
      return `Waiting for the author's approval (${who(goal.createdBy)})`
    case 'paused':
      return 'Paused by its author'
    case 'running':
      return 'Split accepted, in progress'
    case 'awaiting-rollup':
      return goal.failedParts > 0
        ? `Every part settled (${goal.failedParts} failed), waiting for the roll-up`
        : 'Every part done, waiting for the roll-up'
    case 'rolling-up':
      return goal.rollup.holder ? `Rolling up (${who(goal.rollup.holder)})` : 'Rolling up'
    case 'complete':
      return 'Done'
    case 'partial':
      return `Finished with ${plural(goal.failedParts, 'failed part')}`
    case 'failed':
      return goal.rollup.why ? `Failed: ${goal.rollup.why.detail}` : 'Failed'
    case 'cancelled':
      return goal.authorRemoved ? 'Cancelled: its author was removed from the room' : 'Cancelled'
  }
}

/**
 * How a settled goal ended, for a line of its own ("goal done: …"): done,
 * finished with N failed parts, failed, cancelled; else its status words.
 */
export function goalEndWords(goal: GoalStatusFacts): string {
  switch (goal.phase) {
    case 'complete':
      return 'done'
    case 'partial':
      return `finished with ${plural(goal.failedParts, 'failed part')}`
    case 'failed':
      return goal.phase
    case 'cancelled':
      return goal.authorRemoved ? 'cancelled: its author was removed from the room' : 'cancelled'
    default:
      return goalStatusWords(goal, (peer) => peer)
  }
}

/** "5 of 7 leaves done, 2 failed": a goal's counts, the same everywhere. */
export function leafCountWords(leaves: LeafCounts): string {
  if (leaves.total === 0) return 'no leaves yet'
  const failed = leaves.failed > 0 ? `, ${leaves.failed} failed` : ''
  return `${leaves.done} of ${plural(leaves.total, 'leaf').replace(/leafs$/, 'leaves')} done${failed}`
}

/** How the failed leaves failed, in words: "3 by their executors' errors, 1 blocked". */
export function failedByWords(leaves: LeafCounts): string {
  const { attempts, gap, unworked, blocked } = leaves.failedBy
  return [
    attempts ? `${attempts} by their executors' errors` : '',
    unworked ? `${unworked} with no working executor` : '',
    gap ? `${plural(gap, 'capability gap')}` : '',
    blocked ? `${blocked} blocked by a failed step` : '',
  ]
    .filter(Boolean)
    .join(', ')
}
