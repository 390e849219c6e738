/**
 * What the headless agent prints about its budget: the caps at start, a
 * line when a cap stops work (and when it lets go), and what it spent.
 * Pure: activity in, lines out. A cost it does not know is "unknown",
 * never $0.
 */
import type { BudgetLimits, CapName } from '../runtime/budget'
import type { RoleActivity } from '../runtime/types'

const FLAG: Record<CapName, string> = {
  tokensPerGoal: '--max-tokens-per-goal',
  tokensPerHour: '--max-tokens-per-hour',
  usdPerGoal: '--max-cost-per-goal',
  usdPerHour: '--max-cost-per-hour',
}

function amount(cap: CapName, value: number | null): string {
  if (value === null) return 'no cap'
  return cap.startsWith('usd') ? `$${value.toFixed(2)}` : Math.round(value).toLocaleString('en-US')
}

/** "Budget: 300,000 tokens and $2.00 per goal; 1,000,000 tokens and $5.00 per hour" */
export function limitsLine(limits: BudgetLimits): string {
  return (
    `Budget: ${amount('tokensPerGoal', limits.tokensPerGoal)} tokens and ${amount('usdPerGoal', limits.usdPerGoal)} per goal; ` +
    `${amount('tokensPerHour', limits.tokensPerHour)} tokens and ${amount('usdPerHour', limits.usdPerHour)} per hour`
  )
}

/** Warns when a cost cap is set for a model whose price is unknown; null otherwise. */
export function unpricedWarning(limits: BudgetLimits, modelPriced: boolean): string | null {
  if (modelPriced || (limits.usdPerGoal === null && limits.usdPerHour === null)) return null
  return 'this model has no known price: the cost caps cannot be enforced (the token caps still are)'
}

/** One line per cap reached, keyed so that a caller prints each once. */
export function hitLines(activity: RoleActivity): Map<string, string> {
  const lines = new Map<string, string>()
  for (const hit of activity.budget?.decision.hits ?? []) {
    const what =
      hit.goal === null
        ? 'paused: no new LLM work'
        : `no new work on goal ${hit.goal.slice(0, 12)}…`
    lines.set(
      `${hit.cap}:${hit.goal ?? ''}`,
      `${what}: reached ${FLAG[hit.cap]} ${amount(hit.cap, hit.limit)} (${amount(hit.cap, hit.used)} spent); restart with a higher ${FLAG[hit.cap]} to raise it`,
    )
  }
  return lines
}

/** "spent 12,345 tokens in 7 LLM calls, about $0.04" (or "cost unknown") */
export function spentLine(activity: RoleActivity): string {
  const { llm } = activity
  const calls = Object.values(llm.calls).reduce((sum, n) => sum + n, 0)
  const tokens = (llm.inputTokens + llm.outputTokens).toLocaleString('en-US')
  const priced = `$${llm.costUsd.toFixed(2)}`
  const cost = activity.offline
    ? 'no cost (offline model)'
    : llm.unpricedCalls === 0
      ? `about ${priced}`
      : llm.costUsd === 0
        ? 'cost unknown (no known price for the model)'
        : `about ${priced} plus an unknown cost for ${llm.unpricedCalls} calls without a known price`
  return `spent ${tokens} tokens in ${calls} LLM calls, ${cost}`
}
