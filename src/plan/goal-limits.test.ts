import { describe, expect, it } from 'vitest'
import {
  GOAL_RATE_WINDOW_MS,
  GOALS_PER_AUTHOR_PER_WINDOW,
  MAX_OPEN_GOALS_PER_AUTHOR,
} from '../protocol/limits'
import { newCancel, newGoal, type GoalRecord } from '../protocol/records'
import { createRng, type Rng } from '../sim/rng'
import { derivePlan, wouldBeHeld } from './derive'
import { settledRoots } from './archive'
import { countedRoots } from './goal-limits'
import { PlanState } from './state'

const ROOM = 'lobby'
const MALLORY = '12D3KooWMallory000000000000000000000000000000000000'
const ALICE = '12D3KooWA1ice00000000000000000000000000000000000000'
const T0 = 1_800_000_000_000

function goal(from: string, n: number, at: number): GoalRecord {
  return newGoal(ROOM, from, `goal ${n} of ${from.slice(-6)}`, at, 2)
}

function derived(records: readonly (GoalRecord | ReturnType<typeof newCancel>)[]) {
  const state = new PlanState()
  for (const record of records) state.add(record)
  return derivePlan(state)
}

function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

describe('goals per author (goal-limits.ts)', () => {
  it('a burst of goals: only the first MAX_OPEN_GOALS_PER_AUTHOR count, the rest are held and not derived', () => {
    const flood = Array.from({ length: 40 }, (_, n) => goal(MALLORY, n, T0))
    const plan = derived(flood)
    expect(plan.roots).toHaveLength(MAX_OPEN_GOALS_PER_AUTHOR)
    expect(plan.held).toHaveLength(40 - MAX_OPEN_GOALS_PER_AUTHOR)
    for (const id of plan.held) expect(plan.goals.has(id)).toBe(false)
    // two tasks (decide, roll-up) per goal that counts, none for a held goal
    expect(plan.tasks.size).toBe(2 * MAX_OPEN_GOALS_PER_AUTHOR)
  })

  it('the same goals count whatever order they arrive in', () => {
    const rng = createRng(7)
    const records = [
      ...Array.from({ length: 25 }, (_, n) => goal(MALLORY, n, T0 + rng.int(0, 300_000))),
      ...Array.from({ length: 5 }, (_, n) => goal(ALICE, n, T0 + n * 90_000)),
    ]
    const cancel = newCancel(
      ROOM,
      MALLORY,
      [...records].sort((a, b) => a.createdAt - b.createdAt)[0]!.id,
      T0,
    )
    const reference = derived([...records, cancel])
    for (let i = 0; i < 50; i++) {
      const plan = derived(shuffled([...records, cancel], rng))
      expect(plan.roots).toEqual(reference.roots)
      expect(plan.held).toEqual(reference.held)
      expect([...plan.goals.keys()]).toEqual([...reference.goals.keys()])
      expect([...plan.tasks.keys()]).toEqual([...reference.tasks.keys()])
    }
  })

  it('the rate rule: at most GOALS_PER_AUTHOR_PER_WINDOW goals per window by createdAt, even when they settle at once', () => {
    const goals = Array.from({ length: 20 }, (_, n) => goal(MALLORY, n, T0 + n * 1_000))
    const later = goal(MALLORY, 99, T0 + 19_000 + GOAL_RATE_WINDOW_MS)
    // every goal settles at once (as if cancelled): only the window holds them back
    const { counted, held } = countedRoots([...goals, later], () => false)
    expect(counted.map((g) => g.id)).toEqual([
      ...goals.slice(0, GOALS_PER_AUTHOR_PER_WINDOW).map((g) => g.id),
      later.id,
    ])
    expect(held).toHaveLength(20 - GOALS_PER_AUTHOR_PER_WINDOW)
  })

  it('a lying author who spreads goals over past minutes passes the rate rule, but still has at most MAX_OPEN_GOALS_PER_AUTHOR live', () => {
    const liar = Array.from({ length: 30 }, (_, n) =>
      goal(MALLORY, n, T0 - n * GOAL_RATE_WINDOW_MS),
    )
    const honest = Array.from({ length: 2 }, (_, n) => goal(ALICE, n, T0 + n))
    const plan = derived([...liar, ...honest])
    const live = plan.roots.filter((id) => plan.goals.get(id)!.createdBy === MALLORY)
    expect(live).toHaveLength(MAX_OPEN_GOALS_PER_AUTHOR)
    // the liar's limits are its own: another member's goals all count
    for (const g of honest) expect(plan.roots).toContain(g.id)
    // a goal dated before all the others takes the place of the author's latest open one
    const backdated = goal(MALLORY, 1000, T0 - 1_000 * GOAL_RATE_WINDOW_MS)
    const after = derived([...liar, ...honest, backdated])
    const liveAfter = after.roots.filter((id) => after.goals.get(id)!.createdBy === MALLORY)
    expect(liveAfter).toHaveLength(MAX_OPEN_GOALS_PER_AUTHOR)
    expect(liveAfter).toContain(backdated.id)
  })

  it('a settled goal (here cancelled by its author) frees its place for the next held one', () => {
    const goals = Array.from({ length: 5 }, (_, n) => goal(MALLORY, n, T0 + n * 1_000))
    const before = derived(goals)
    expect(before.roots).toEqual(goals.slice(0, 3).map((g) => g.id))
    const after = derived([...goals, newCancel(ROOM, MALLORY, goals[0]!.id, T0 + 10_000)])
    expect(after.roots).toEqual(goals.slice(0, 4).map((g) => g.id))
    expect(after.goals.get(goals[0]!.id)!.status).toBe('cancelled')
    // a cancel by someone else settles nothing (authority.ts), so frees nothing
    const forged = derived([...goals, newCancel(ROOM, ALICE, goals[0]!.id, T0 + 10_000)])
    expect(forged.roots).toEqual(before.roots)
  })

  it('a settled goal is not archived while its author has goals held (it still fills a place in the window)', () => {
    const goals = Array.from({ length: 5 }, (_, n) => goal(MALLORY, n, T0 + n * 1_000))
    const cancel = newCancel(ROOM, MALLORY, goals[0]!.id, T0 + 10_000)
    expect(settledRoots(derived([...goals, cancel]))).toEqual([])
    expect(settledRoots(derived([...goals.slice(0, 3), cancel]))).toEqual([goals[0]!.id])
  })

  it('tells a tab beforehand whether its own new goal would be held', () => {
    const goals = Array.from({ length: 3 }, (_, n) => goal(ALICE, n, T0 + n * 1_000))
    const state = new PlanState()
    for (const g of goals) state.add(g)
    expect(wouldBeHeld(state, goal(ALICE, 3, T0 + 5_000))).toBe(true)
    expect(wouldBeHeld(state, goal(MALLORY, 0, T0 + 5_000))).toBe(false)
    state.add(newCancel(ROOM, ALICE, goals[1]!.id, T0 + 4_000))
    expect(wouldBeHeld(state, goal(ALICE, 3, T0 + 5_000))).toBe(false)
  })
})
