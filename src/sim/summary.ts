/** Sums many seeds' results into the one JSON line `npm run sim` prints last. */
import type { SeedResult } from './run'

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

const sum = (results: SeedResult[], pick: (r: SeedResult) => number) =>
  results.reduce((total, result) => total + pick(result), 0)

export function summarise(results: SeedResult[], wallSeconds: number) {
  const times = results.filter((r) => r.completed).map((r) => r.virtualSeconds)
  return {
    seeds: results.length,
    seeds_converged: results.filter((r) => r.converged).length,
    seeds_completed: results.filter((r) => r.completed).length,
    /** unfinished by the protocol's rules (run.ts, undecidable): not a failure */
    seeds_unfinishable: results.filter((r) => r.unfinishable).length,
    failed_seeds: results.filter((r) => !r.converged).map((r) => r.seed),
    goals: sum(results, (r) => r.goals),
    accepted_splits: sum(results, (r) => r.acceptedSplits),
    leaves: sum(results, (r) => r.leaves),
    accepted_results: sum(results, (r) => r.acceptedResults),
    duplicate_accepted_results: sum(results, (r) => r.duplicateResults),
    overturned_results: sum(results, (r) => r.overturnedResults),
    wasted_executions: sum(results, (r) => r.wastedExecutions),
    duplicate_child_goals: sum(results, (r) => r.duplicateChildren),
    goals_decomposed_outside_the_tree: sum(results, (r) => r.strayGoals),
    accept_conflicts: sum(results, (r) => r.acceptConflicts),
    subgoals_disputed_by_voters: sum(results, (r) => r.disputedSubgoals),
    max_depth: Math.max(0, ...results.map((r) => r.maxDepth)),
    llm_calls: sum(results, (r) => r.llmCalls),
    accepts: {
      quorum: sum(results, (r) => r.accepts.quorum),
      settled: sum(results, (r) => r.accepts.settled),
      deadline: sum(results, (r) => r.accepts.deadline),
    },
    ...(results.some((r) => r.flood)
      ? {
          flood_goals_sent: sum(results, (r) => r.flood?.sent ?? 0),
          flood_goals_worked: sum(results, (r) => r.flood?.worked ?? 0),
          flood_goals_worked_max: Math.max(0, ...results.map((r) => r.flood?.worked ?? 0)),
          flood_records_sent: sum(results, (r) => r.flood?.records ?? 0),
          flood_records_held_max: Math.max(0, ...results.map((r) => r.flood?.heldMax ?? 0)),
        }
      : {}),
    virtual_seconds_p50: percentile(times, 50),
    virtual_seconds_p95: percentile(times, 95),
    wall_seconds: Math.round(wallSeconds * 10) / 10,
  }
}
