/**
 * Read-only views over a PlanTree for the UI: find a node by id, count a
 * goal's leaves, find what this peer did. Results are cached per object: with
 * structural sharing (share-structure.ts) an unchanged goal keeps its
 * identity, so its numbers are not recounted on every update.
 */
import type { GoalView, PlanTree, ProposalView, SlotView } from '../../plan/tree'

export type PlanNode =
  | { kind: 'goal'; id: string; goal: GoalView; slot: SlotView | null; parent: GoalView | null }
  | { kind: 'leaf'; id: string; slot: SlotView; parent: GoalView }

/** A subgoal's id in the UI: its child goal's, its node's, or its place until classified. */
export function slotId(parent: GoalView, slot: SlotView): string {
  return slot.goal?.id ?? slot.nodeId ?? `${parent.id}#${slot.index}`
}

export function nodeOfSlot(parent: GoalView, slot: SlotView): PlanNode {
  return slot.goal
    ? { kind: 'goal', id: slot.goal.id, goal: slot.goal, slot, parent }
    : { kind: 'leaf', id: slotId(parent, slot), slot, parent }
}

export interface GoalStats {
  leaves: number
  done: number
  failed: number
  /** failed leaves that were real capability gaps (plan/why.ts), not executors' errors */
  gaps: number
  /** goals and subgoals below this goal, itself included */
  nodes: number
}

const statsCache = new WeakMap<GoalView, GoalStats>()

/** A goal's counts: its projected leaves (plan/goal-status.ts, the same everywhere) and its nodes. */
export function goalStats(goal: GoalView): GoalStats {
  const cached = statsCache.get(goal)
  if (cached) return cached
  let nodes = 1
  for (const slot of goal.slots) nodes += slot.goal ? goalStats(slot.goal).nodes : 1
  const { total, done, failed, failedBy } = goal.leaves
  const stats: GoalStats = { leaves: total, done, failed, gaps: failedBy.gap, nodes }
  statsCache.set(goal, stats)
  return stats
}

const indexCache = new WeakMap<GoalView, Map<string, PlanNode>>()

/** Every node under a root goal, by id. */
export function indexGoal(root: GoalView): Map<string, PlanNode> {
  const cached = indexCache.get(root)
  if (cached) return cached
  const index = new Map<string, PlanNode>()
  const visit = (node: PlanNode) => {
    index.set(node.id, node)
    if (node.kind !== 'goal') return
    for (const slot of node.goal.slots) visit(nodeOfSlot(node.goal, slot))
  }
  visit({ kind: 'goal', id: root.id, goal: root, slot: null, parent: null })
  indexCache.set(root, index)
  return index
}

/** Walks every goal of the tree, depth first. */
export function* allGoals(tree: PlanTree): Generator<GoalView> {
  const stack = [...tree.goals].reverse()
  while (stack.length) {
    const goal = stack.pop()!
    yield goal
    for (let i = goal.slots.length - 1; i >= 0; i--) {
      const child = goal.slots[i]!.goal
      if (child) stack.push(child)
    }
  }
}

/** What one peer did in the plan, for its role panel. */
export interface PeerContributions {
  proposals: { goal: GoalView; proposal: ProposalView }[]
  votes: { goal: GoalView; proposal: ProposalView; score: number; notes: string }[]
  acceptances: GoalView[]
  claims: { goal: GoalView; slot: SlotView }[]
  results: { goal: GoalView; slot: SlotView }[]
  rollups: GoalView[]
}

export function contributionsOf(tree: PlanTree, peerId: string): PeerContributions {
  const mine: PeerContributions = {
    proposals: [],
    votes: [],
    acceptances: [],
    claims: [],
    results: [],
    rollups: [],
  }
  for (const goal of allGoals(tree)) {
    for (const proposal of goal.proposals) {
      if (proposal.from === peerId) mine.proposals.push({ goal, proposal })
      for (const vote of proposal.votes) {
        if (vote.from === peerId) mine.votes.push({ goal, proposal, ...vote })
      }
    }
    if (goal.accepted?.decidedBy === peerId) mine.acceptances.push(goal)
    if (goal.rollup.resultBy === peerId) mine.rollups.push(goal)
    for (const slot of goal.slots) {
      const leaf = slot.leaf
      if (!leaf) continue
      if (leaf.resultBy === peerId) mine.results.push({ goal, slot })
      else if (leaf.holder === peerId && leaf.status === 'claimed') mine.claims.push({ goal, slot })
    }
  }
  return mine
}
