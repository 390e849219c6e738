/**
 * Classification that failed is tried again, not final (issue 44): a
 * subgoal fails for good only after MAX_CLASSIFY_ROUNDS rounds (decide-task
 * epochs) failed it, and a decider that failed a subgoal gives the decide
 * task back once its pass over the split is over, so that the next epoch
 * (another scorer first) tries again. docs/PROTOCOL.md §5.1, §5.3. Pure.
 */
import type { FailureRecord } from '../protocol/records'
import { MAX_EPOCH } from '../protocol/limits'
import { PEER_TROUBLE_ERRORS } from '../protocol/rules'
import type { DerivedSlot } from './derived-types'
import type { TaskState } from './tasks'

/**
 * Rounds of classification that failed a subgoal: the distinct epochs of its
 * holders' classify failures, less a peer's own trouble (key, network,
 * quota), which says nothing about the subgoal (PEER_TROUBLE_ERRORS).
 */
export function classifyRounds(attempts: readonly FailureRecord[]): number {
  return new Set(attempts.filter((f) => !PEER_TROUBLE_ERRORS.has(f.errorKind)).map((f) => f.epoch))
    .size
}

/**
 * A decider whose classification of a subgoal failed gives the decide task
 * back once its pass over the split is over: every subgoal has a node, has
 * failed for good, or was failed by this holder in its epoch. The next epoch
 * then tries the subgoals still unclassified (another scorer first; roles/
 * claims.ts). Derived, not published: no record more, and the holder's calls
 * still running for other subgoals are not cut short.
 */
export function releaseFailedPass(
  decide: TaskState,
  slots: readonly DerivedSlot[],
  failures: readonly FailureRecord[],
): void {
  const holder = decide.holder
  if (!holder || decide.released) return
  const mine = failures.filter((f) => f.from === holder.from && f.epoch === holder.epoch)
  if (mine.length === 0) return
  const over = slots.every(
    (slot) => slot.node || slot.classifyFailure || mine.some((f) => f.index === slot.index),
  )
  if (!over) return
  decide.released = true
  decide.status = decide.status === 'failed' || decide.epoch >= MAX_EPOCH ? 'failed' : 'open'
}
