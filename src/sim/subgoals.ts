/**
 * Whether every subgoal of every accepted split is in the plan at the end
 * of a run, classified as its voters judged it (issue 46): as the majority
 * of the judgements in the score records cited by one of the accepts of that
 * split (which one classifies, the latest epoch's, is left to the unit
 * tests, as are ties). Counted from the raw records, not from the
 * derivation under test (plan/classify.ts), so a rule that dropped a
 * subgoal or ignored its voters shows here.
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
    const scores = state.goalRecords(goal.id).scores
    const ballots = state
      .goalRecords(goal.id)
      .accepts.filter((a) => a.proposal === goal.accepted!.id)
      .map((accept) => {
        const cited = new Set(accept.votes)
        return scores.filter((s: ScoreRecord) => cited.has(s.id) && s.proposal === accept.proposal)
      })
    const atCap = goal.depth + 1 >= goal.maxDepth
    for (const slot of goal.slots) {
      const verdicts = ballots.map((voters) => {
        const atomic = voters.filter((v) => v.judgements[slot.index]?.atomic === true).length
        return { atomic, of: voters.length }
      })
      if (verdicts.some(({ atomic, of }) => atomic > 0 && atomic < of)) check.disputed++
      // a tie may go either way (the tie rule's unit tests); a majority must be followed
      const agrees = verdicts.some(
        ({ atomic, of }) => atomic * 2 === of || (atomic * 2 > of || atCap) === slot.atomic,
      )
      if (!agrees) {
        const { atomic, of } = verdicts[0] ?? { atomic: 0, of: 0 }
        check.violations.push(
          `subgoal ${slot.index} of goal ${goal.id} is ${slot.atomic ? 'atomic' : 'composite'} where ${atomic} of ${of} voters judged it atomic`,
        )
      }
    }
  }
  return check
}
