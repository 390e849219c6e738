import { describe, expect, it } from 'vitest'
import { derivePlan } from '../plan/derive'
import { acceptedSplit } from '../plan/split.test-support'
import { runSeed } from './run'
import { DEFAULT_SWARM } from './swarm'
import { checkSubgoals } from './subgoals'

describe('every subgoal is in the plan, classified by its voters (issues 44, 46)', () => {
  it('runs with two score calls in five failing finish with every subgoal present', () => {
    let disputed = 0
    for (let seed = 70_900; seed < 70_902; seed++) {
      const result = runSeed({
        ...DEFAULT_SWARM,
        seed,
        model: { ...DEFAULT_SWARM.model, failRates: { score: 0.4 } },
      })
      expect(result.violations, `seed ${seed}`).toEqual([])
      expect(result.completed, `seed ${seed}`).toBe(true)
      disputed += result.disputedSubgoals
    }
    // the simulated scorers disagree now and then: the majority rule was exercised
    expect(disputed).toBeGreaterThan(0)
  }, 60_000) // two whole simulated runs: seconds each on a loaded machine

  it('the check reports a subgoal classified against its voters, or missing', () => {
    const composite = { atomic: false, capability: 'can_write_text' as const }
    const atomic = { atomic: true, capability: 'can_write_text' as const }
    const split = acceptedSplit(2, 3, [
      [atomic, composite],
      [atomic, composite],
    ])
    const plan = derivePlan(split.plan)
    expect(checkSubgoals(plan, split.plan).violations).toEqual([])
    // a derivation that ignored its voters (say, every subgoal atomic) shows
    const goal = plan.goals.get(split.goal.id)!
    goal.slots[1]!.atomic = true
    expect(checkSubgoals(plan, split.plan).violations).toEqual([
      `subgoal 1 of goal ${split.goal.id} is atomic where 0 of 2 voters judged it atomic`,
    ])
    // and one that dropped a subgoal
    goal.slots.pop()
    expect(checkSubgoals(plan, split.plan).violations[0]).toBe(
      `goal ${split.goal.id} shows 1 of its subgoals`,
    )
  })
})
