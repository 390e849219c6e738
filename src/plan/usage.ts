/**
 * LLM usage as the plan's records report it: by role, for the whole room
 * and for each goal's own subtree. Pure; costs reach it as a function
 * (CostOf), since prices are the LLM layer's knowledge.
 */
import type { PlanRecord, Usage } from '../protocol/records'
import { treeRecordIds } from './archive'
import type { DerivedPlan } from './derive'
import type { PlanState } from './state'

export interface UsageTotals {
  calls: number
  inputTokens: number
  outputTokens: number
  offlineCalls: number
  /** at list prices of the models the records name (0 for the offline model); calls of unpriced models are not in it */
  costUsd: number
  /**
   * calls that spent tokens of models with no known price: their cost is
   * unknown, so costUsd is a lower bound when > 0. A call refused before any
   * token (a rejected key, an unknown model) cost nothing and is not one.
   */
  unpricedCalls: number
  /** calls that failed (their failure records'), in `calls` too */
  failedCalls: number
}

/** Usage totals per role (a failure's usage counts for the role whose call failed). */
export type RoleUsage = Record<'decomposer' | 'scorer' | 'executor', UsageTotals>

/**
 * What a call cost in US dollars, from its usage record. Prices are the LLM
 * layer's knowledge (src/llm/pricing.ts costUsd); they reach the tree as
 * this function, handed in by whoever projects it. Default: nothing costs.
 */
export type CostOf = (usage: Usage) => number | null

export const NO_COST: CostOf = () => 0

/**
 * Costs are summed as whole nano-dollars: float addition depends on order,
 * and records() iterates in arrival order, so a float sum could differ
 * between two peers holding the same records. Integers stay exact up to
 * 2^53 nano-dollars (9 million dollars).
 */
const NANOS_PER_USD = 1e9

function addUsage(
  totals: UsageTotals,
  nanos: { n: number },
  call: { usage: Usage; failed: boolean },
  costUsd: CostOf,
): void {
  const { usage } = call
  totals.calls++
  if (call.failed) totals.failedCalls++
  totals.inputTokens += usage.inputTokens
  totals.outputTokens += usage.outputTokens
  if (usage.offline) totals.offlineCalls++
  // a call that spent no token cost nothing, whatever its model's price
  const cost = usage.inputTokens + usage.outputTokens > 0 ? costUsd(usage) : 0
  if (cost === null) totals.unpricedCalls++
  else nanos.n += Math.round(cost * NANOS_PER_USD)
  totals.costUsd = nanos.n / NANOS_PER_USD
}

/** Usage totals of a role that has made no call. */
export function zeroUsage(): UsageTotals {
  return {
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    offlineCalls: 0,
    costUsd: 0,
    unpricedCalls: 0,
    failedCalls: 0,
  }
}

const ROLE_OF_KIND: Partial<Record<PlanRecord['kind'], keyof RoleUsage>> = {
  proposal: 'decomposer',
  score: 'scorer',
  result: 'executor',
}

/** The role whose LLM call a record reports, and the call's usage; null for records of no call. */
function callOf(
  record: PlanRecord,
): { role: keyof RoleUsage; usage: Usage; failed: boolean } | null {
  if (record.kind === 'failure') {
    if (!record.usage) return null
    const role =
      record.stage === 'decompose' ? 'decomposer' : record.stage === 'score' ? 'scorer' : 'executor'
    return { role, usage: record.usage, failed: true }
  }
  const role = ROLE_OF_KIND[record.kind]
  return role && 'usage' in record ? { role, usage: record.usage, failed: false } : null
}

function sumUsage(records: Iterable<PlanRecord>, costUsd: CostOf): RoleUsage {
  const usage = { decomposer: zeroUsage(), scorer: zeroUsage(), executor: zeroUsage() }
  const nanos = { decomposer: { n: 0 }, scorer: { n: 0 }, executor: { n: 0 } }
  for (const record of records) {
    const call = callOf(record)
    if (call) addUsage(usage[call.role], nanos[call.role], call, costUsd)
  }
  return usage
}

/** The whole room's usage: every record the plan state holds (held goals' and archived ones' aside). */
export function usageByRole(state: PlanState, costUsd: CostOf = NO_COST): RoleUsage {
  return sumUsage(state.records(), costUsd)
}

/**
 * Each goal's own usage: the records of its subtree (its proposals, votes,
 * classifications, child goals, leaves and roll-ups, with the failed calls
 * among them, archive.ts treeRecordIds), not the room's. A new goal starts
 * at zero whatever the room spent before it.
 */
export function usageByGoal(
  plan: DerivedPlan,
  state: PlanState,
  costUsd: CostOf = NO_COST,
): Map<string, RoleUsage> {
  const byGoal = new Map<string, RoleUsage>()
  // roll-up tasks of each subtree: a redo or a veto renames them (steering.ts)
  const rollups = new Map<string, string[]>()
  // plan.goals is breadth-first: backwards, every child comes before its parent
  for (const goal of [...plan.goals.values()].reverse()) {
    const own = [goal.rollup.id]
    if (goal.supersededRollup) own.push(goal.supersededRollup.task)
    for (const slot of goal.slots) if (slot.child) own.push(...(rollups.get(slot.child) ?? []))
    rollups.set(goal.id, own)
    const ids = treeRecordIds(state, goal.id, own)
    const records: PlanRecord[] = []
    for (const id of ids) {
      const record = state.get(id)
      if (record) records.push(record)
    }
    byGoal.set(goal.id, sumUsage(records, costUsd))
  }
  return byGoal
}
