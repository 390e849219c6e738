/**
 * Whether every subgoal of every accepted split is in the plan at the end
 * of a run, classified as its voters judged it (issue 46): the majority of
 * the judgements in the score records its accept cites. Counted from the raw
 * records, not from the derivation under test (plan/classify.ts), so a rule
 * that dropped a subgoal or ignored its voters shows here. Ties are left to
 * the unit tests of the tie rule.
 */
import type { DerivedPlan } from '../plan/derive'
import type { PlanState } from '../plan/state'
import type { ScoreRecord } from '../protocol/records'

export interface SubgoalCheck {
  /** subgoals whose voters disagreed about their atomicity */
  disputed: number
  violations: string[]
}

export function checkSubgoals(plan: DerivedPlan, state: PlanState): SubgoalCheck {
  const check: SubgoalCheck = { disputed: 0, violations: [] }
  for (const goal of plan.goals.values()) {
    if (!goal.accepted || !goal.accept) continue
    if (goal.slots.length !== goal.accepted.subgoals.length) {
      check.violations.push(`goal ${goal.id} shows ${goal.slots.length} of its subgoals`)
    }
    const cited = new Set(goal.accept.votes)
    const voters = state
      .goalRecords(goal.id)
      .scores.filter((s: ScoreRecord) => cited.has(s.id) && s.proposal === goal.accepted!.id)
    const atCap = goal.depth + 1 >= goal.maxDepth
    for (const slot of goal.slots) {
      const atomic = voters.filter((v) => v.judgements[slot.index]?.atomic === true).length
      const composite = voters.length - atomic
      if (atomic > 0 && composite > 0) check.disputed++
      if (atomic === composite) continue
      const expected = atomic > composite || atCap
      if (slot.atomic !== expected) {
        check.violations.push(
          `subgoal ${slot.index} of goal ${goal.id} is ${slot.atomic ? 'atomic' : 'composite'} where ${atomic} of ${voters.length} voters judged it atomic`,
        )
      }
    }
  }
  return check
}
