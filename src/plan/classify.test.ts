import { describe, expect, it } from 'vitest'
import { MAX_CLASSIFY_ROUNDS } from '../protocol/rules'
import { derivePlan } from './derive'
import { acceptedSplit, claimOf, classifyFailure, SCORERS } from './split.test-support'

describe('a classification that failed is tried again (issue 44)', () => {
  it('keeps the subgoal unclassified and gives the decide task back once the pass is over', () => {
    const split = acceptedSplit(3)
    const [a] = SCORERS
    split.plan.add(split.node(a, 0, 0))
    split.plan.add(classifyFailure(a, split.decide, 0, 1))
    // subgoal 2 still being classified: the holder keeps the task
    let goal = derivePlan(split.plan).goals.get(split.goal.id)!
    expect(goal.slots[1]!.status).toBe('unclassified')
    expect(goal.slots[1]!.classifyFailure).toBeNull()
    expect(goal.slots[1]!.classifyAttempts).toHaveLength(1)
    expect(goal.decide.status).toBe('claimed')
    expect(goal.decide.released).toBe(false)
    // its pass over (subgoal 2 classified): the task is open for the next epoch
    split.plan.add(split.node(a, 0, 2))
    goal = derivePlan(split.plan).goals.get(split.goal.id)!
    expect(goal.decide.released).toBe(true)
    expect(goal.decide.status).toBe('open')
    expect(goal.slots.map((slot) => slot.status)).toEqual(['open', 'unclassified', 'open'])
    // nothing rolls up while a part is missing
    expect(goal.status).toBe('accepted')
  })

  it('fails the subgoal for good only after MAX_CLASSIFY_ROUNDS failed rounds', () => {
    const split = acceptedSplit(2)
    split.plan.add(split.node(SCORERS[0], 0, 0))
    for (let epoch = 0; epoch < MAX_CLASSIFY_ROUNDS; epoch++) {
      const scorer = SCORERS[epoch % SCORERS.length]!
      if (epoch > 0) split.plan.add(claimOf(scorer, 'decide', split.goal.id, epoch))
      const before = derivePlan(split.plan).goals.get(split.goal.id)!
      expect(before.slots[1]!.status).toBe('unclassified')
      split.plan.add(classifyFailure(scorer, split.decide, epoch, 1))
    }
    const goal = derivePlan(split.plan).goals.get(split.goal.id)!
    expect(goal.slots[1]!.status).toBe('failed')
    expect(goal.slots[1]!.classifyFailure?.epoch).toBe(MAX_CLASSIFY_ROUNDS - 1)
    expect(goal.slots[1]!.classifyAttempts).toHaveLength(MAX_CLASSIFY_ROUNDS)
  })

  it('counts a round once however many failures its epoch has, and ignores unauthorised ones', () => {
    const split = acceptedSplit(2)
    const [a, b] = SCORERS
    split.plan.add(split.node(a, 0, 0))
    split.plan.add(classifyFailure(a, split.decide, 0, 1))
    // a co-claimant of epoch 0 fails it too: still one round
    split.plan.add(claimOf(b, 'decide', split.goal.id, 0))
    split.plan.add(classifyFailure(b, split.decide, 0, 1))
    // a failure in an epoch its author never claimed counts for nothing
    split.plan.add(classifyFailure(b, split.decide, 1, 1))
    split.plan.add(classifyFailure(b, split.decide, 2, 1))
    const slot = derivePlan(split.plan).goals.get(split.goal.id)!.slots[1]!
    expect(slot.classifyAttempts).toHaveLength(2)
    expect(slot.status).toBe('unclassified')
  })

  it('a node from a later round settles the subgoal', () => {
    const split = acceptedSplit(2)
    const [a, b] = SCORERS
    split.plan.add(split.node(a, 0, 0))
    split.plan.add(classifyFailure(a, split.decide, 0, 1))
    split.plan.add(claimOf(b, 'decide', split.goal.id, 1))
    let goal = derivePlan(split.plan).goals.get(split.goal.id)!
    expect(goal.decide.status).toBe('claimed') // b holds epoch 1
    split.plan.add(split.node(b, 1, 1))
    goal = derivePlan(split.plan).goals.get(split.goal.id)!
    expect(goal.slots.map((slot) => slot.status)).toEqual(['open', 'open'])
    expect(goal.slots[1]!.classifyAttempts).toEqual([])
  })
})
