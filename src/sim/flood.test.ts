import { describe, expect, it } from 'vitest'
import { AUTHOR_QUOTA, MAX_OPEN_GOALS_PER_AUTHOR } from '../protocol/limits'
import { runSeed } from './run'
import { DEFAULT_SWARM } from './swarm'
import { FLOOD_GOALS_PER_ROUND, FLOOD_RECORDS } from './flood'

/** Seeds with a goal-flooding member: the flood meets the plan at every stage. */
const SEEDS = Array.from({ length: 6 }, (_, i) => 101 + i)

describe('a member flooding the room with goals and records', () => {
  it('never has more than the limits allow live or stored, costs a bounded share, and the plan finishes', () => {
    for (const seed of SEEDS) {
      const result = runSeed({ ...DEFAULT_SWARM, seed, flood: true })
      const flood = result.flood!
      console.log(`seed ${seed}: ${JSON.stringify(flood)} llm calls ${result.llmCalls}`)
      expect(result.violations, `seed ${seed}`).toEqual([])
      expect(result.completed, `seed ${seed}`).toBe(true)
      expect(result.converged, `seed ${seed}`).toBe(true)
      expect(flood.sent, `seed ${seed}`).toBe(flood.rounds * FLOOD_GOALS_PER_ROUND)
      // at most MAX_OPEN new goals start per round (a backdated batch takes the places of
      // the flooder's own goals); without the limits every goal sent would be worked
      expect(flood.worked, `seed ${seed}`).toBeLessThanOrEqual(
        MAX_OPEN_GOALS_PER_AUTHOR * flood.rounds,
      )
      // 2,000 valid cancels, gossiped and handed over as sync would: no replica
      // ever held more than the quota (converged: every replica the same ones)
      expect(flood.records, `seed ${seed}`).toBe(FLOOD_RECORDS)
      expect(flood.heldMax, `seed ${seed}`).toBe(AUTHOR_QUOTA.cancel)
    }
  }, 300_000)
})
