/**
 * Export one root goal's plan: as Markdown (the rolled-up plan document
 * first, then the tree that produced it) or as JSON (the goal's whole tree).
 */
import type { GoalView, PlanTree, SlotView } from './tree'

export class UnknownGoalError extends Error {
  override name = 'UnknownGoalError'
}

function findGoal(tree: PlanTree, goalId: string): GoalView {
  const goal = tree.goals.find((candidate) => candidate.id === goalId)
  if (!goal) throw new UnknownGoalError(`no root goal ${goalId}`)
  return goal
}

export function exportJson(tree: PlanTree, goalId: string): string {
  return JSON.stringify({ format: 'murmuration-plan/1', goal: findGoal(tree, goalId) }, null, 2)
}

function slotLines(slot: SlotView, depth: number): string[] {
  const indent = '  '.repeat(depth)
  const kind = slot.atomic === null ? '' : slot.atomic ? ` _(leaf, ${slot.capability})_` : ''
  const lines = [`${indent}- **${slot.text}** — ${slot.status}${kind}`]
  if (slot.goal) for (const child of slot.goal.slots) lines.push(...slotLines(child, depth + 1))
  return lines
}

export function exportMarkdown(tree: PlanTree, goalId: string): string {
  const goal = findGoal(tree, goalId)
  const parts = [`# ${goal.text}`, '']
  if (goal.rollup.output) {
    parts.push(goal.rollup.output.trim(), '')
  } else {
    parts.push(`_The plan is not finished yet (status: ${goal.status})._`, '')
  }
  parts.push('---', '', '## How the swarm split it', '')
  for (const slot of goal.slots) parts.push(...slotLines(slot, 0))
  if (goal.accepted) {
    parts.push(
      '',
      `Top-level split accepted by ${goal.accepted.basis} with a mean score of ${goal.accepted.score.toFixed(2)}.`,
    )
  }
  return `${parts.join('\n')}\n`
}
