/**
 * Settling a derived goal (derive.ts): its slots' statuses and its own,
 * once its children are settled, and the roll-up task a redo or a veto
 * below renamed. Pure, like the derivation that calls it.
 */
import type { DerivedGoal } from './derived-types'
import type { PlanState } from './state'
import { rollupSubject } from './steering'
import { deriveTask, type TaskState } from './tasks'

/** Statuses of a goal's slots and of the goal itself; its children are already settled. */
export function settleGoal(
  plan: PlanState,
  goal: DerivedGoal,
  goals: Map<string, DerivedGoal>,
  tasks: Map<string, TaskState>,
): void {
  // a redo anywhere below gives this goal a new roll-up task (steering.ts)
  const redos: string[] = []
  // so does a veto of its split: the roll-up of a split sent back is not this goal's
  const renamers = goal.vetoes.map((veto) => veto.verdict.id)
  for (const slot of goal.slots) {
    for (const step of slot.superseded) redos.push(step.redo.id)
    if (slot.child) redos.push(...(goals.get(slot.child)?.redos ?? []))
  }
  // and both rename every roll-up above it, whose parts they change
  goal.redos = [...renamers, ...redos]
  if (goal.redos.length > 0) {
    goal.supersededRollup = previousRollup(plan, goal.id, goal.redos)
    goal.rollup = deriveTask(plan, 'rollup', rollupSubject(goal.id, goal.redos))
  }
  tasks.set(goal.rollup.id, goal.rollup)
  for (const slot of goal.slots) {
    const blockedBy = slot.dependsOn.some((dep) => goal.slots[dep]?.status === 'failed')
    const waiting = slot.dependsOn.some((dep) => goal.slots[dep]?.status !== 'done')
    if (goal.approval === 'waiting') {
      slot.status = 'approval'
    } else if (slot.execute) {
      const task = slot.execute
      slot.output = task.result?.output ?? null
      if (task.status === 'done') slot.status = 'done'
      else if (task.status === 'failed') slot.status = 'failed'
      else if (blockedBy) {
        slot.blocked = true
        slot.status = 'failed'
      } else if (waiting) slot.status = 'waiting'
      else slot.status = task.status === 'claimed' ? 'claimed' : 'open'
    } else if (slot.child) {
      const child = goals.get(slot.child)
      slot.output = child?.rollup.result?.output ?? null
      // a cancelled child will never roll up: for its parent it is settled, unsuccessfully
      slot.status =
        child?.status === 'done'
          ? 'done'
          : child?.status === 'failed' || child?.status === 'cancelled'
            ? 'failed'
            : 'active'
    }
  }
  // a split waiting for approval runs nothing, whatever was done before the author asked
  goal.status = goal.cancelled
    ? 'cancelled'
    : goal.approval === 'waiting'
      ? 'awaiting-approval'
      : goal.rollup.status === 'done'
        ? 'done'
        : goal.rollup.status === 'failed'
          ? 'failed'
          : goal.accepted
            ? 'accepted'
            : goal.proposals.length > 0
              ? 'scoring'
              : 'awaiting-proposals'
}

/**
 * The roll-up result the current one replaces: of the roll-ups named by all
 * but one of `renamers` (in id order), the first with a result.
 */
function previousRollup(plan: PlanState, goal: string, renamers: readonly string[]) {
  for (const left of [...renamers].sort()) {
    const rest = renamers.filter((id) => id !== left)
    const result = deriveTask(plan, 'rollup', rollupSubject(goal, rest)).result
    if (result) return result
  }
  return null
}
