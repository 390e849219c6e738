/**
 * How many peers of each role a swarm of N has.
 *
 * One observer watches the plan (it makes no LLM calls; the benchmark reads
 * the finish time from its tree). The rest are about a quarter decomposers,
 * a quarter scorers and half executors, with at least 1 decomposer, 2
 * scorers (acceptance needs votes from 2 distinct scorers) and 1 executor.
 * Below 5 peers there is no room for an observer: the 4-peer swarm is
 * 1 decomposer, 2 scorers, 1 executor, and the goal's submitter (a
 * decomposer) is the one whose tree is watched.
 *
 * 11 peers (the default) → 3 decomposers, 3 scorers, 4 executors, 1 observer.
 */
import type { Role } from '../src/runtime/types'

export interface RoleSplit {
  decomposer: number
  scorer: number
  executor: number
  observer: number
}

export const MIN_PEERS = 4

export function splitRoles(peers: number): RoleSplit {
  if (!Number.isInteger(peers) || peers < MIN_PEERS) {
    throw new Error(
      `a swarm needs at least ${MIN_PEERS} peers (1 decomposer, 2 scorers, 1 executor)`,
    )
  }
  const observer = peers >= MIN_PEERS + 1 ? 1 : 0
  const workers = peers - observer
  const decomposer = Math.max(1, Math.round(workers / 4))
  const scorer = Math.max(2, Math.round(workers / 4))
  const executor = workers - decomposer - scorer
  return { decomposer, scorer, executor, observer }
}

/** The roles in start order: decomposers, scorers, executors, observers. */
export function roleList(split: RoleSplit): Role[] {
  return [
    ...Array<Role>(split.decomposer).fill('decomposer'),
    ...Array<Role>(split.scorer).fill('scorer'),
    ...Array<Role>(split.executor).fill('executor'),
    ...Array<Role>(split.observer).fill('observer'),
  ]
}

/**
 * Which of `count` peers run as tabs: `tabs` indices spread evenly over the
 * workers between the first (it submits the goals) and the last (the
 * observer whose tree is watched), so tabs get a mix of roles.
 */
export function tabPeers(count: number, tabs: number): number[] {
  const first = 1
  const last = count - 2
  const span = last - first + 1
  if (tabs <= 0) return []
  if (tabs > span) throw new Error(`at most ${Math.max(0, span)} of ${count} peers can be tabs`)
  return Array.from({ length: tabs }, (_, k) => first + Math.floor(((k + 0.5) * span) / tabs))
}
