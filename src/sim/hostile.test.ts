import { describe, expect, it } from 'vitest'
import { runSeed } from './run'
import { DEFAULT_SWARM } from './swarm'

/** Seeds with a hostile member: enough to meet every attack at every stage of a plan. */
const SEEDS = [1, 2, 3, 4, 5, 6]

describe('a hostile member in the swarm', () => {
  it('cancels nothing, fails nothing, holds nothing, replaces no result; the plan finishes and replicas agree', () => {
    for (const seed of SEEDS) {
      const result = runSeed({ ...DEFAULT_SWARM, seed, hostile: true })
      expect(result.violations, `seed ${seed}`).toEqual([])
      expect(result.completed, `seed ${seed}`).toBe(true)
      expect(result.converged, `seed ${seed}`).toBe(true)
      expect(result.acceptedResults, `seed ${seed}`).toBe(result.leaves)
    }
  }, 120_000)
})
