/**
 * Whether the orchestrator made the swarm's calls (issue 56). It is fed the
 * swarm's own counts and the swarm's very prompts (sides.ts, budgetFor), so
 * goal by goal it makes the same decompositions, executes each leaf the
 * swarm executed and rolls up each goal the swarm rolled up. Two kinds of
 * swarm calls it cannot make, by design, and they are told apart rather
 * than called a mismatch:
 *
 * - lost claims: an execute or roll-up a swarm executor started and dropped
 *   because another executor's claim on the same task was earlier (an
 *   aborted call beside an answered one for that task);
 * - late scores: a goal's score calls beyond the orchestrator's. It is
 *   given the swarm's count for each split and decides the moment a split
 *   has its second vote, starting none after; a swarm scorer hears of the
 *   acceptance a gossip hop later, and may have begun another by then. (It
 *   never makes more than the swarm: the counts it is given cap it.)
 *
 * Anything else that differs is a mismatch, listed goal by goal.
 *
 * Pure.
 */
import { KINDS, PATH_SEPARATOR, emptyCounts, type KindCounts, type LlmCall } from './calls'

export interface CallComparison {
  /** the same calls, exactly */
  identical: boolean
  /** the same calls once the swarm's own extras are set aside */
  match: boolean
  lostClaims: KindCounts
  lateScores: number
  /** what differs otherwise, one line each */
  differences: string[]
}

/** The task a call is about: the goal, and the leaf for an execute. */
function taskOf(call: LlmCall): string {
  return call.kind === 'execute' ? `${call.goal}${PATH_SEPARATOR}${call.item ?? ''}` : call.goal
}

function countBy(calls: readonly LlmCall[], kind: string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const call of calls)
    if (call.kind === kind) counts.set(taskOf(call), (counts.get(taskOf(call)) ?? 0) + 1)
  return counts
}

/** Aborted executes and roll-ups of a task that also has an answered call of that kind. */
function lostClaimsOf(calls: readonly LlmCall[]): { counts: KindCounts; calls: Set<LlmCall> } {
  const counts = emptyCounts()
  const lost = new Set<LlmCall>()
  for (const kind of ['execute', 'rollup'] as const) {
    const answered = new Set(
      calls.filter((c) => c.kind === kind && c.status === 'ok').map((c) => taskOf(c)),
    )
    for (const call of calls)
      if (call.kind === kind && call.status === 'aborted' && answered.has(taskOf(call))) {
        counts[kind]++
        lost.add(call)
      }
  }
  return { counts, calls: lost }
}

export function compareCalls(
  swarm: readonly LlmCall[],
  central: readonly LlmCall[],
): CallComparison {
  const lost = lostClaimsOf(swarm)
  const kept = swarm.filter((call) => !lost.calls.has(call))
  const differences: string[] = []
  let lateScores = 0
  for (const kind of KINDS) {
    const s = countBy(kept, kind)
    const c = countBy(central, kind)
    for (const task of new Set([...s.keys(), ...c.keys()])) {
      const ns = s.get(task) ?? 0
      const nc = c.get(task) ?? 0
      if (ns === nc) continue
      if (kind === 'score' && ns > nc) lateScores += ns - nc
      else differences.push(`${kind} of “${task}”: swarm ${ns}, orchestrator ${nc}`)
    }
  }
  const identical =
    differences.length === 0 && lateScores === 0 && KINDS.every((k) => lost.counts[k] === 0)
  return {
    identical,
    match: differences.length === 0,
    lostClaims: lost.counts,
    lateScores,
    differences,
  }
}

/** What the bench prints about it: one line, and the differences under a mismatch. */
export function comparisonLines(comparison: CallComparison): string[] {
  if (comparison.identical) return ['  the same calls on both sides']
  const { lostClaims, lateScores } = comparison
  const extras = [
    lostClaims.execute ? `${lostClaims.execute} execute${lostClaims.execute === 1 ? '' : 's'}` : '',
    lostClaims.rollup ? `${lostClaims.rollup} roll-up${lostClaims.rollup === 1 ? '' : 's'}` : '',
  ].filter(Boolean)
  const own = [
    extras.length ? `${extras.join(' and ')} dropped on a lost claim` : '',
    lateScores
      ? `${lateScores} score${lateScores === 1 ? '' : 's'} of splits the orchestrator had decided by then`
      : '',
  ].filter(Boolean)
  const swarmOwn = own.length ? `the swarm's own extra calls: ${own.join(', ')}` : ''
  if (comparison.match) return [`  the same calls on both sides${swarmOwn ? `; ${swarmOwn}` : ''}`]
  return [
    `  MISMATCH: the two sides did not make the same calls${swarmOwn ? ` (besides ${swarmOwn})` : ''}:`,
    ...comparison.differences.map((line) => `    ${line}`),
  ]
}
