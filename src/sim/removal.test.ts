import { describe, expect, it } from 'vitest'
import { derived } from '../roles/room-view'
import { membershipIn, removalViolations } from './removal'
import { runSeed } from './run'
import { DEFAULT_SWARM, type Swarm } from './swarm'

/** Seeds with two removals each: a root's author among the removed in some (11, 12). */
const SEEDS = [1, 2, 11, 12]

describe('removals in the simulator (sim/removal.ts)', () => {
  it('every replica converges, counts nothing a removal did not keep, and the plan finishes', () => {
    for (const seed of SEEDS) {
      let sim: Swarm | null = null
      const result = runSeed({ ...DEFAULT_SWARM, seed, removals: 2, onStep: (s) => (sim = s) })
      expect(result.violations, `seed ${seed}`).toEqual([])
      expect(result.converged, `seed ${seed}`).toBe(true)
      expect(result.completed, `seed ${seed}`).toBe(true)
      // the removals happened, and what the removed wrote after them reached the replicas
      const peer = sim!.alive().find((p) => p.role === 'observer')!
      const membership = membershipIn(peer.state!.plan, 'sim', peer.state!.config.owner!)
      expect(membership.removed.size, `seed ${seed}`).toBe(2)
      const late = [...peer.state!.plan.roots.values()].filter((g) => g.text.startsWith('After'))
      expect(late.length, `seed ${seed}`).toBeGreaterThan(0)
      const plan = derived(peer.state!)
      for (const goal of late) expect(plan.goals.has(goal.id), `seed ${seed}`).toBe(false)
      expect(removalViolations(plan, membership)).toEqual([])
    }
  }, 120_000)
})
