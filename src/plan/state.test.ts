import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { contentId } from '../protocol/hash'
import type { PlanRecord } from '../protocol/records'
import { DEFAULT_SWARM, type Swarm } from '../sim/swarm'
import { runSeed } from '../sim/run'
import { derivePlan } from './derive'
import { PlanState } from './state'
import { projectTree } from './tree'

/** Every record of a finished simulated run: a realistic plan with all record kinds. */
let records: PlanRecord[] = []

beforeAll(() => {
  let sim: Swarm | undefined
  runSeed({ ...DEFAULT_SWARM, seed: 7, onStep: (s) => (sim = s) })
  const observer = sim!.alive().find((peer) => peer.role === 'observer')!
  records = [...observer.state!.plan.records()]
})

function stateOf(list: readonly PlanRecord[]): PlanState {
  const state = new PlanState()
  for (const record of list) state.add(record)
  return state
}

function ids(state: PlanState): string[] {
  return [...state.ids()].sort()
}

function treeOf(state: PlanState): string {
  return contentId(projectTree(derivePlan(state), state) as unknown as never)
}

const subset = () => fc.subarray(records)

describe('plan state', () => {
  it('has a realistic record set to test with', () => {
    const kinds = new Set(records.map((record) => record.kind))
    for (const kind of [
      'goal',
      'proposal',
      'score',
      'claim',
      'accept',
      'node',
      'result',
    ] as const) {
      expect(kinds.has(kind), kind).toBe(true)
    }
    expect(
      derivePlan(stateOf(records)).goals.get(derivePlan(stateOf(records)).roots[0]!)?.status,
    ).toBe('done')
  })

  it('merge is commutative, associative and idempotent', () => {
    fc.assert(
      fc.property(subset(), subset(), subset(), (a, b, c) => {
        const ab = stateOf(a)
        ab.merge(stateOf(b))
        const ba = stateOf(b)
        ba.merge(stateOf(a))
        expect(ids(ab)).toEqual(ids(ba))

        const abThenC = stateOf(a)
        abThenC.merge(stateOf(b))
        abThenC.merge(stateOf(c))
        const bc = stateOf(b)
        bc.merge(stateOf(c))
        const aThenBc = stateOf(a)
        aThenBc.merge(bc)
        expect(ids(abThenC)).toEqual(ids(aThenBc))

        const aa = stateOf(a)
        const version = aa.version
        aa.merge(stateOf(a))
        expect(ids(aa)).toEqual(ids(stateOf(a)))
        expect(aa.version).toBe(version)
      }),
      { numRuns: 60 },
    )
  })

  it('any permutation and duplication of the same records gives the same tree', () => {
    const reference = treeOf(stateOf(records))
    fc.assert(
      fc.property(
        fc.shuffledSubarray(records, { minLength: records.length, maxLength: records.length }),
        fc.array(fc.nat(records.length - 1), { maxLength: 40 }),
        (shuffled, duplicates) => {
          const withDuplicates = [...shuffled]
          for (const at of duplicates) withDuplicates.splice(at, 0, records[at]!)
          expect(treeOf(stateOf(withDuplicates))).toBe(reference)
        },
      ),
      { numRuns: 40 },
    )
  })

  it('every prefix of a delivery order derives a tree without throwing', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(records), (partial) => {
        const plan = derivePlan(stateOf(partial))
        for (const goal of plan.goals.values()) {
          expect(goal.slots.length === 0 || goal.accepted !== null).toBe(true)
        }
      }),
      { numRuns: 60 },
    )
  })
})
