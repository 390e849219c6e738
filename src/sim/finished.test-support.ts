/**
 * A finished simulated run's records, for role tests that take one part of
 * the plan back (a leaf's claims and results, a goal's decision) and watch a
 * peer do it again.
 */
import type { PlanRecord } from '../protocol/records'
import type { DerivedPlan } from '../plan/derive'
import { PlanState } from '../plan/state'
import { derived } from '../roles/room-view'
import { runSeed } from './run'
import { DEFAULT_SWARM, type Swarm } from './swarm'

/** Every record the observer holds at the end of a crash-free run, and the plan they derive. */
export function finishedRun(seed: number): { records: PlanRecord[]; view: DerivedPlan } {
  let sim: Swarm | undefined
  runSeed({ ...DEFAULT_SWARM, seed, crashes: false, onStep: (s) => (sim = s) })
  const observer = sim!.alive().find((p) => p.role === 'observer')!
  const records = [...observer.state!.plan.records()] as PlanRecord[]
  const full = new PlanState()
  for (const record of records) full.add(record)
  return { records, view: derived({ plan: full, derivedCache: null, config: {} } as never) }
}

/** A plan of `records` less those `drop` picks. */
export function planWithout(
  records: readonly PlanRecord[],
  drop: (record: PlanRecord) => boolean,
): PlanState {
  const plan = new PlanState()
  for (const record of records) if (!drop(record)) plan.add(record)
  return plan
}

/** A finished run less its first leaf's claims, results and failures: that leaf is open again. */
export function openLeaf(seed: number) {
  const { records, view } = finishedRun(seed)
  const [task, leaf] = [...view.leaves.entries()][0]!
  const about = (record: PlanRecord) =>
    'task' in record ? record.task : record.kind === 'failure' ? record.subject : ''
  return { plan: planWithout(records, (record) => about(record) === task), task, leaf }
}
