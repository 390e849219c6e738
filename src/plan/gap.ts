/**
 * A leaf that failed as a capability gap (docs/PROTOCOL.md §5.6) may still be
 * taken by an executor that offers its capability later (a person turned web
 * search on after seeing the gap): its claim of the gap's epoch voids the
 * gap (§5.10, authority.ts gapCounts), while the goal's roll-up has not been
 * claimed. Once it has, the roll-up writes the plan without the leaf and the
 * gap stands; its author may still send the leaf back (redo, §5.12). Pure.
 */
import { MAX_TASK_ATTEMPTS } from '../protocol/rules'
import type { DerivedGoal, DerivedSlot } from './derived-types'

export function gapRevivable(goal: DerivedGoal, slot: DerivedSlot): boolean {
  const task = slot.execute
  return (
    task !== null &&
    task.status === 'failed' &&
    task.gap !== null &&
    task.result === null &&
    task.failedBy.size < MAX_TASK_ATTEMPTS &&
    !slot.blocked &&
    !goal.cancelled &&
    goal.approval !== 'waiting' &&
    goal.rollup.epoch < 0
  )
}
