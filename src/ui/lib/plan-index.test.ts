import { describe, expect, it } from 'vitest'
import { syntheticTree } from '../dev/synthetic-tree'
import { contributionsOf, goalStats, indexGoal } from './plan-index'
import { shareStructure } from './share-structure'

describe('plan index', () => {
  const tree = syntheticTree(200)
  const root = tree.goals[0]!

  it('finds every node by id', () => {
    expect(indexGoal(root).size).toBe(200)
    expect(goalStats(root).nodes).toBe(200)
  })

  it('counts leaves, done and failed', () => {
    const stats = goalStats(root)
    expect(stats.leaves).toBeGreaterThan(0)
    expect(stats.done).toBeGreaterThan(0)
    expect(stats.done + stats.failed).toBeLessThanOrEqual(stats.leaves)
  })

  it('recounts only what changed', () => {
    const next = structuredClone(tree)
    // a goal three levels down, whose subgoals are leaves
    const top = next.goals[0]!
    const path = [top, top.slots[0]!.goal!]
    path.push(path[1]!.slots[0]!.goal!)
    path.push(path[2]!.slots[0]!.goal!)
    const parent = path[3]!
    const leaf = parent.slots.find(
      (s) => s.atomic === true && s.status !== 'done' && s.status !== 'failed',
    )!
    leaf.status = 'done'
    // the projection counts it on every goal above it (plan/tree.ts leaves)
    for (const goal of path) goal.leaves.done++
    const shared = shareStructure(tree, next)
    expect(goalStats(shared.goals[0]!).done).toBe(goalStats(root).done + 1)
    // an untouched sibling keeps its object, hence its cached stats
    expect(shared.goals[0]!.slots[1]!.goal).toBe(root.slots[1]!.goal)
  })

  it('finds what one peer did', () => {
    const decidedBy = root.accepted!.decidedBy
    const mine = contributionsOf(tree, decidedBy)
    expect(mine.acceptances.map((g) => g.id)).toContain(root.id)
    const proposer = root.proposals[0]!.from
    expect(contributionsOf(tree, proposer).proposals.length).toBeGreaterThan(0)
  })
})
