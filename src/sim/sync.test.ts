/** The simulator's anti-entropy: the real reconciliation core gives what the oracle gives, within budget. */
import { describe, expect, it } from 'vitest'
import { PlanState } from '../plan/state'
import { newGoal, type PlanRecord } from '../protocol/records'
import { SYNC_PARAMS } from '../protocol/reconcile'
import { runSeed } from './run'
import { DEFAULT_SWARM } from './swarm'
import { oracleSync, realSyncFor, reconcileSync } from './sync'

/** ten authors, so no author's goals reach its quota (AUTHOR_QUOTA.goal) */
const AUTHORS = Array.from(
  { length: 10 },
  (_, i) => `12D3KooWQFEixa16JoXBDxgDrRsXqyCD4VY5B25vGmUyGQp4sFL${'abcdefghij'[i]}`,
)
const goal = (i: number): PlanRecord =>
  newGoal('sim', AUTHORS[i % AUTHORS.length]!, `goal ${i}`, 1_000 + i, 3)

function state(range: [number, number]): PlanState {
  const s = new PlanState()
  for (let i = range[0]; i < range[1]; i++) s.add(goal(i))
  return s
}

const ids = (records: PlanRecord[]) => records.map((r) => r.id).sort()

describe('sim sync', () => {
  it('hands each side exactly what the oracle would', () => {
    const a = state([0, 700])
    const b = state([300, 1_000])
    const real = reconcileSync(a, b)
    const oracle = oracleSync(a, b)
    expect(ids(real.toA)).toEqual(ids(oracle.toA))
    expect(ids(real.toB)).toEqual(ids(oracle.toB))
    expect(real.toA.length).toBe(300)
    expect(real.messages).toBeGreaterThan(1)
  })

  it('moves at most the per-session budget, like a tab', () => {
    const real = reconcileSync(state([0, 0]), state([0, 120]), { ...SYNC_PARAMS, maxHave: 50 })
    expect(real.toA.length).toBe(50)
  })

  it('uses the real sync on odd seeds unless told otherwise', () => {
    expect([1, 2, 3].map((s) => realSyncFor(s, undefined))).toEqual([true, false, true])
    expect(realSyncFor(2, true)).toBe(true)
    expect(realSyncFor(1, false)).toBe(false)
  })

  it('converges a lossy run with the real sync', () => {
    const result = runSeed({ ...DEFAULT_SWARM, seed: 7, loss: 0.2, realSync: true })
    expect(result.violations).toEqual([])
    expect(result.converged).toBe(true)
  })
})
