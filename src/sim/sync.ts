/**
 * Anti-entropy in the simulator: either the real reconciliation core
 * (src/net/reconcile.ts, the same pure functions and parameters a tab's sync
 * sessions run, budgets included) or an all-knowing oracle that hands each
 * side everything it lacks. Which one a run uses is SwarmOptions.realSync
 * (default: the real one on odd seeds, the oracle on even seeds).
 */
import type { PlanRecord } from '../protocol/records'
import type { PlanState } from '../plan/state'
import { IdSet, reconcileInMemory, SYNC_PARAMS, type ReconcileParams } from '../protocol/reconcile'

export interface SimSyncResult {
  /** records `a` asked for and gets from `b`, and the other way round */
  toA: PlanRecord[]
  toB: PlanRecord[]
  /** reconciliation messages exchanged (0 for the oracle) */
  messages: number
}

/** Whether a run of this seed uses the real sync unless told otherwise. */
export function realSyncFor(seed: number, realSync: boolean | undefined): boolean {
  return realSync ?? seed % 2 === 1
}

function missing(from: PlanState, to: PlanState): PlanRecord[] {
  const out: PlanRecord[] = []
  for (const record of from.records()) if (!to.has(record.id)) out.push(record)
  return out
}

/** The oracle: each side gets every record it lacks. */
export function oracleSync(a: PlanState, b: PlanState): SimSyncResult {
  return { toA: missing(b, a), toB: missing(a, b), messages: 0 }
}

/**
 * One session of the real protocol between two replicas: reconcile the id
 * sets message by message, then each side asks for at most `maxHave` of the
 * ids it learned it lacks and gets exactly those (what is over the budget
 * waits for a later session, as in a tab).
 */
export function reconcileSync(
  a: PlanState,
  b: PlanState,
  params: ReconcileParams = SYNC_PARAMS,
): SimSyncResult {
  const { aNeeds, bNeeds, messages } = reconcileInMemory(
    new IdSet(a.ids()),
    new IdSet(b.ids()),
    params,
  )
  const fetch = (ids: string[], from: PlanState): PlanRecord[] => {
    const out: PlanRecord[] = []
    for (const id of ids.slice(0, params.maxHave)) {
      const record = from.get(id)
      if (record !== undefined) out.push(record)
    }
    return out
  }
  return { toA: fetch(aNeeds, b), toB: fetch(bNeeds, a), messages }
}
