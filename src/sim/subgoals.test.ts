import { describe, expect, it } from 'vitest'
import { derivePlan } from '../plan/derive'
import { acceptedSplit, classifyFailure, SCORERS } from '../plan/split.test-support'
import { runSeed } from './run'
import { DEFAULT_SWARM } from './swarm'
import { checkSubgoals } from './subgoals'

describe('every subgoal stays in the plan when classifications fail (issue 44)', () => {
  it('runs with two classify calls in five failing finish with every subgoal present', () => {
    let retried = 0
    for (let seed = 70_900; seed < 70_902; seed++) {
      const result = runSeed({
        ...DEFAULT_SWARM,
        seed,
        model: { ...DEFAULT_SWARM.model, failRates: { classify: 0.4 } },
      })
      expect(result.violations, `seed ${seed}`).toEqual([])
      expect(result.completed, `seed ${seed}`).toBe(true)
      retried += result.classifyRetried
    }
    expect(retried).toBeGreaterThan(0)
  }, 60_000) // two whole simulated runs: seconds each on a loaded machine

  it('the check reports a subgoal failed after one round (the rule before issue 44)', () => {
    const split = acceptedSplit(2)
    split.plan.add(split.node(SCORERS[0], 0, 0))
    const failure = classifyFailure(SCORERS[0], split.decide, 0, 1)
    split.plan.add(failure)
    const plan = derivePlan(split.plan)
    expect(checkSubgoals(plan, split.plan).violations).toEqual([])
    // as the old derivation had it: the first failure settled the subgoal
    plan.goals.get(split.goal.id)!.slots[1]!.classifyFailure = failure
    expect(checkSubgoals(plan, split.plan).violations).toEqual([
      `subgoal 1 of goal ${split.goal.id} failed after 1 classification round(s)`,
    ])
  })
})
