/**
 * The call inspector's view of its calls (issue 43): which plan node each
 * call was for, in words rather than hex ids, the calls of one goal, and
 * what they add up to, so a goal's figures can be checked against the calls
 * behind them. Pure.
 */
import type { GoalView, PlanTree } from '../../plan/tree'
import type { CallEntry } from '../../runtime/call-log'

/** The plan's node ids (goals, proposals, leaves' and roll-ups' tasks) named by their text. */
export function nodeNames(tree: PlanTree): Map<string, string> {
  const names = new Map<string, string>()
  const visit = (goal: GoalView) => {
    names.set(goal.id, `goal: ${goal.text}`)
    names.set(goal.rollup.id, `roll-up of: ${goal.text}`)
    goal.proposals.forEach((proposal, i) =>
      names.set(proposal.id, `split ${i + 1} of: ${goal.text}`),
    )
    for (const slot of goal.slots) {
      if (slot.leaf) names.set(slot.leaf.id, `leaf: ${slot.text}`)
      for (const earlier of slot.superseded)
        names.set(earlier.task.id, `leaf (sent back): ${slot.text}`)
      if (slot.goal) visit(slot.goal)
    }
  }
  tree.goals.forEach(visit)
  return names
}

/** What a call worked on, in words: its node's name, else its root goal's, else nothing known. */
export function callSubject(
  call: Pick<CallEntry, 'node' | 'goal' | 'kind'>,
  names: ReadonlyMap<string, string>,
): string | null {
  const node = call.node === null ? undefined : names.get(call.node)
  if (node) return node
  const goal = call.goal === null ? undefined : names.get(call.goal)
  return goal ? `${call.kind} for ${goal}` : null
}

export interface CallTotals {
  calls: number
  inputTokens: number
  outputTokens: number
  costUsd: number
  /** calls of models with no known price */
  unpriced: number
}

export function callTotals(calls: readonly CallEntry[]): CallTotals {
  const totals = { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, unpriced: 0 }
  for (const call of calls) {
    totals.calls++
    totals.inputTokens += call.inputTokens
    totals.outputTokens += call.outputTokens
    if (call.costUsd === null) totals.unpriced++
    else totals.costUsd += call.costUsd
  }
  return totals
}

/** The calls made for one root goal ('all': every call). */
export function callsOfGoal(calls: readonly CallEntry[], goal: string): CallEntry[] {
  return goal === 'all' ? [...calls] : calls.filter((call) => call.goal === goal)
}
