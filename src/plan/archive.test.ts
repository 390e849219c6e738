/** Archiving settled trees: they partition the plan, and dropping one changes no other goal. */
import { describe, expect, it } from 'vitest'
import { DEFAULT_SWARM, Swarm } from '../sim/swarm'
import { derived } from '../roles/room-view'
import { derivePlan } from './derive'
import { archiveIds, settledRoots, treeRecordIds, withoutRecords } from './archive'
import { projectTree } from './tree'
import type { PlanState } from './state'

const GOALS = ['Plan a two-week trip to Japan', 'Write a birthday speech', 'Set up a home lab']

/** A finished simulated room of three root goals, as its observer holds it once in sync. */
function finishedRoom(seed: number): PlanState {
  const sim = new Swarm({
    ...DEFAULT_SWARM,
    seed,
    goals: GOALS,
    crashes: false,
    loss: 0.05,
    model: { ...DEFAULT_SWARM.model, failRate: 0.1 },
  })
  GOALS.forEach((text, i) => sim.schedule(3_000 + i * 700, { type: 'submit', peer: i, text }))
  const observer = sim.peers.find((p) => p.role === 'observer')!
  const done = sim.runUntil(() => {
    const plan = derived(observer.state!)
    return plan.roots.length === GOALS.length && settledRoots(plan).length === GOALS.length
  }, 20 * 60_000)
  expect(done).toBe(true)
  // records of a branch that lost (a subgoal classified twice) may still be on
  // their way by anti-entropy, a claim ahead of its node: wait until the
  // observer holds every record the room made
  const synced = sim.runUntil(
    () =>
      sim.peers.every((peer) =>
        [...peer.state!.plan.ids()].every((id) => observer.state!.plan.has(id)),
      ),
    sim.now + 5 * 60_000,
  )
  expect(synced).toBe(true)
  return observer.state!.plan
}

const treeOf = (state: PlanState, root: string) =>
  JSON.stringify(projectTree(derivePlan(state), state).goals.find((g) => g.id === root))

describe('archive', () => {
  for (const seed of [11, 12]) {
    it(`splits a finished room into disjoint trees covering every record (seed ${seed})`, () => {
      const state = finishedRoom(seed)
      const roots = settledRoots(derivePlan(state))
      expect(roots.length).toBe(3)
      const trees = roots.map((root) => treeRecordIds(state, root))
      const total = trees.reduce((n, t) => n + t.size, 0)
      expect(archiveIds(state, roots).size).toBe(total) // disjoint
      expect(total).toBe(state.size) // every record belongs to a tree
      for (const t of trees) expect(t.size).toBeGreaterThan(10)
    })

    it(`drops one tree without changing how the others derive (seed ${seed})`, () => {
      const state = finishedRoom(seed)
      const [gone, ...kept] = settledRoots(derivePlan(state)) as [string, ...string[]]
      const drop = treeRecordIds(state, gone)
      const next = withoutRecords(state, drop)
      expect(next.size).toBe(state.size - drop.size)
      expect(next.version).toBeGreaterThan(state.version)
      const plan = derivePlan(next)
      expect(plan.roots).toEqual(kept)
      for (const root of kept) expect(treeOf(next, root)).toEqual(treeOf(state, root))
      expect(settledRoots(plan)).toEqual(kept)
    })
  }
})
