/**
 * Whether every subgoal of every accepted split is still in the plan at the
 * end of a run (issue 44): classified, or failed for good only after
 * MAX_CLASSIFY_ROUNDS rounds of classification failed it. Counted from the
 * raw failure records, not from the derivation under test, so a rule that
 * dropped a subgoal at its first failure shows here.
 */
import type { DerivedPlan } from '../plan/derive'
import type { PlanState } from '../plan/state'
import { MAX_CLASSIFY_ROUNDS, PEER_TROUBLE_ERRORS } from '../protocol/rules'

export interface SubgoalCheck {
  /** subgoals classified after at least one failed round */
  retried: number
  /** subgoals whose classification failed for good */
  failedForGood: number
  violations: string[]
}

export function checkSubgoals(plan: DerivedPlan, state: PlanState): SubgoalCheck {
  const check: SubgoalCheck = { retried: 0, failedForGood: 0, violations: [] }
  for (const goal of plan.goals.values()) {
    if (!goal.accepted) continue
    if (goal.slots.length !== goal.accepted.subgoals.length) {
      check.violations.push(`goal ${goal.id} shows ${goal.slots.length} of its subgoals`)
    }
    const failures = state
      .failures(goal.decide.id)
      .filter((f) => f.stage === 'classify' && !PEER_TROUBLE_ERRORS.has(f.errorKind))
    for (const slot of goal.slots) {
      const rounds = new Set(failures.filter((f) => f.index === slot.index).map((f) => f.epoch))
      if (slot.node && rounds.size > 0) check.retried++
      if (!slot.classifyFailure) continue
      check.failedForGood++
      if (rounds.size < MAX_CLASSIFY_ROUNDS) {
        check.violations.push(
          `subgoal ${slot.index} of goal ${goal.id} failed after ${rounds.size} classification round(s)`,
        )
      }
    }
  }
  return check
}
