/**
 * The words of the budget notice: which cap was reached, what that stops,
 * and the raise a button offers. Pure, for the component and its tests.
 */
import type { BudgetLimits, CapHit, CapName } from '../../runtime/budget'
import { formatCost } from './format'
import { raisedCap } from './budget-settings'

const PER: Record<CapName, string> = {
  tokensPerHour: 'tokens per hour',
  usdPerHour: 'per hour (estimated cost)',
  tokensPerGoal: 'tokens per goal',
  usdPerGoal: 'per goal (estimated cost)',
}

/** "1,000 tokens per hour", "$2.00 per goal (estimated cost)" */
export function capText(cap: CapName, value: number): string {
  const amount = cap.startsWith('usd')
    ? formatCost(value)
    : Math.round(value).toLocaleString('en-US')
  return `${amount} ${PER[cap]}`
}

export interface HitNotice {
  headline: string
  detail: string
  /** the limits a "raise" button applies */
  raised: BudgetLimits
  raiseLabel: string
}

/**
 * `goalText`: the goal's text, for a per-goal cap; `resumesAt`: when the
 * sliding hour lets go by itself (the budget's decision), if it will.
 */
export function hitNotice(
  hit: CapHit,
  limits: BudgetLimits,
  goalText: string | null,
  resumesAt: number | null = null,
): HitNotice {
  const by =
    resumesAt === null
      ? ''
      : ` (by ${new Date(resumesAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })})`
  const next = raisedCap(hit.limit, hit.used)
  const used = hit.cap.startsWith('usd')
    ? `${formatCost(hit.used)} (estimated)`
    : `${Math.round(hit.used).toLocaleString('en-US')} tokens`
  const hourly = hit.goal === null
  return {
    headline: hourly
      ? `Paused: this tab reached its cap of ${capText(hit.cap, hit.limit)}.`
      : `Stopped working on “${goalText ?? 'a goal'}”: this tab reached its cap of ${capText(hit.cap, hit.limit)}.`,
    detail: hourly
      ? `${used} spent in the last hour. This role takes no new LLM work (work already running finishes) until you raise the cap, or the hour’s older spending ages out${by}.`
      : `${used} spent on this goal. This role takes no new work for it; other goals go on.`,
    raised: { ...limits, [hit.cap]: next },
    raiseLabel: `Raise to ${capText(hit.cap, next)}`,
  }
}
