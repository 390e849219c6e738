/**
 * Why a task or a leaf failed, from the record set alone, the same for
 * every view (the tree, the goal's counts, exports, the terminal; issue 56).
 * A capability gap is a gap only when it is one: a leaf the executors
 * offering its capability took and failed failed because of them (their
 * model's error is the reason), even if a scorer's notice ended it later.
 * Pure.
 */
import type { FailureRecord } from '../protocol/records'
import type { DerivedGoal, DerivedSlot } from './derived-types'
import type { TaskState } from './tasks'

/**
 * - 'attempts': the executors that took it failed it; `detail` is their
 *   error (a model not found, a rejected key, replies that never validated)
 * - 'gap': nobody present offered the capability it needs
 * - 'unworked': executors offering it were present but none could take it
 *   (their model failing, their spending paused), says the notice that ended it
 * - 'blocked': a subgoal it depends on failed, so it never ran
 */
export type FailureKind = 'attempts' | 'gap' | 'unworked' | 'blocked'

export interface FailureReason {
  kind: FailureKind
  /** one line: the error, the missing capability, the failed dependency */
  detail: string
}

/** The failure to quote: the latest epoch's (the last try), then the lowest id. */
function lastFailure(failures: readonly FailureRecord[]): FailureRecord | undefined {
  let last: FailureRecord | undefined
  for (const failure of failures) {
    if (
      !last ||
      failure.epoch > last.epoch ||
      (failure.epoch === last.epoch && failure.id < last.id)
    )
      last = failure
  }
  return last
}

/** Why a failed task failed; null while it has not. */
export function taskFailure(task: TaskState): FailureReason | null {
  if (task.status !== 'failed') return null
  const last = lastFailure(task.failures)
  // its executors' own errors are the reason, whatever notice ended it afterwards
  if (last) {
    const others = new Set(task.failures.map((failure) => failure.detail))
    others.delete(last.detail)
    const more = others.size ? ` (and ${others.size} other error${others.size > 1 ? 's' : ''})` : ''
    return { kind: 'attempts', detail: `${last.detail}${more}` }
  }
  if (task.gap)
    return { kind: task.gap.errorKind === 'none' ? 'gap' : 'unworked', detail: task.gap.detail }
  return { kind: 'attempts', detail: 'it failed with no reason given' }
}

/** Why a subgoal failed: a failed dependency, or its leaf's task; null for a composite or one not failed. */
export function slotFailure(goal: DerivedGoal, slot: DerivedSlot): FailureReason | null {
  if (slot.status !== 'failed') return null
  if (slot.blocked) {
    const failed = slot.dependsOn
      .map((index) => goal.slots[index])
      .filter((dep): dep is DerivedSlot => dep?.status === 'failed')
    const what = failed.every((dep) => dep.atomic) ? 'leaf' : 'subgoal'
    const which = failed.map((dep) => `${dep.index + 1}. ${dep.text}`).join('; ')
    return { kind: 'blocked', detail: `depends on a failed ${what}: ${which}` }
  }
  return slot.execute ? taskFailure(slot.execute) : null
}
