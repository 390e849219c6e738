import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { costUsd } from '../llm/pricing'
import { contentId } from '../protocol/hash'
import { newCancel, stamp, type PlanRecord, type ResultRecord } from '../protocol/records'
import { AUTHOR_QUOTA } from '../protocol/limits'
import { DEFAULT_SWARM, type Swarm } from '../sim/swarm'
import { runSeed } from '../sim/run'
import { derivePlan } from './derive'
import { PlanState } from './state'
import { projectTree, usageByRole } from './tree'

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
    for (const kind of ['goal', 'proposal', 'score', 'claim', 'accept', 'result'] as const) {
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

/** A run with LLM failures: tasks with several failures, classify failures, releases. */
function recordsOfRun(seed: number, failRate: number): PlanRecord[] {
  let sim: Swarm | undefined
  runSeed({
    ...DEFAULT_SWARM,
    seed,
    model: { ...DEFAULT_SWARM.model, failRate },
    onStep: (s) => (sim = s),
  })
  const observer = sim!.alive().find((peer) => peer.role === 'observer')!
  return [...observer.state!.plan.records()]
}

describe('plan state: arrival order never shows', () => {
  // seed 5008 with 10% LLM failures once ended in "same records, different
  // trees": a task's failures were listed in arrival order. Take the first
  // run from there, at a higher failure rate, with a task that failed twice.
  const failedTwice = (records: PlanRecord[]) =>
    [...derivePlan(stateOf(records)).tasks.values()].some((task) => task.failures.length >= 2)
  let failing: PlanRecord[] = []
  for (let seed = 5008; seed < 5050 && !failedTwice(failing); seed++) {
    failing = recordsOfRun(seed, 0.3)
  }

  it('has tasks that failed more than once', () => {
    const state = stateOf(failing)
    const plan = derivePlan(state)
    expect([...plan.tasks.values()].some((task) => task.failures.length >= 2)).toBe(true)
  })

  it('the same records in reverse, or shuffled, give the same tree', () => {
    const reference = treeOf(stateOf(failing))
    expect(treeOf(stateOf([...failing].reverse()))).toBe(reference)
    fc.assert(
      fc.property(
        fc.shuffledSubarray(failing, { minLength: failing.length, maxLength: failing.length }),
        (shuffled) => {
          expect(treeOf(stateOf(shuffled))).toBe(reference)
        },
      ),
      { numRuns: 30 },
    )
  })

  it('index lists are sorted by id whatever the arrival order', () => {
    const state = stateOf([...failing].reverse())
    const sorted = (list: readonly { id: string }[]) =>
      list.every((record, i) => i === 0 || list[i - 1]!.id < record.id)
    for (const task of derivePlan(state).tasks.values()) {
      expect(sorted(state.taskRecords(task.id).claims)).toBe(true)
      expect(sorted(state.failures(task.id))).toBe(true)
    }
  })

  it('cost totals do not depend on the order usage was summed in', () => {
    // 0.1 + 0.2 + 0.3 differs from 0.3 + 0.2 + 0.1 in floating point
    const usage = (outputTokens: number) => ({
      provider: 'openai',
      model: 'gpt-4.1-nano',
      inputTokens: 0,
      outputTokens,
      offline: false,
    })
    const results = [250_000, 500_000, 750_000].map((tokens, i) =>
      stamp<ResultRecord>({
        kind: 'result',
        room: 'r',
        from: 'p',
        task: contentId(['t', i]),
        epoch: 0,
        output: 'x',
        usage: usage(tokens),
      }),
    )
    // prices reach the tree as a function (the LLM layer's), handed in by the caller
    const forward = usageByRole(stateOf(results), costUsd).executor.costUsd
    const backward = usageByRole(stateOf([...results].reverse()), costUsd).executor.costUsd
    expect(forward).toBe(backward)
    expect(forward).toBeCloseTo(0.6, 9)
  })
})

describe('plan state: the author quota', () => {
  it('a flood over the quota leaves the same set, indexes and plan in any order', () => {
    const flooder = '12D3KooWF1ooderMember1111111111111111111111111111111'
    const goal = records.find((r) => r.kind === 'goal')!
    // cancels of a real goal by someone else, twice the quota: counted for nothing
    const flood = Array.from({ length: 2 * AUTHOR_QUOTA.cancel }, (_, i) =>
      newCancel(goal.room, flooder, goal.id, 1_700_000_000_000 + i),
    )
    const kept = flood
      .map((r) => r.id)
      .sort()
      .slice(0, AUTHOR_QUOTA.cancel)
    const forward = stateOf([...records, ...flood])
    const backward = stateOf([...[...flood].reverse(), ...records])
    for (const state of [forward, backward]) {
      expect(state.size).toBe(records.length + AUTHOR_QUOTA.cancel)
      const cancels = state.goalRecords(goal.id).cancels.filter((c) => c.from === flooder)
      expect(cancels.map((c) => c.id)).toEqual(kept)
    }
    expect(ids(forward)).toEqual(ids(backward))
    const plan = (state: PlanState) =>
      JSON.stringify(projectTree(derivePlan(state), state, costUsd))
    expect(plan(forward)).toBe(plan(stateOf(records)))
    expect(plan(backward)).toBe(plan(forward))
  })
})
