import { describe, expect, it } from 'vitest'
import { DEFAULT_SWARM, type SwarmOptions } from './options'
import { SeedPool, SeedRunError } from './pool'
import { runSeed } from './run'

/** cli.ts serves seeds when imported off the main thread, as `npm run sim` starts its threads. */
const ENTRY = new URL('./cli.ts', import.meta.url).href

describe('SeedPool', () => {
  it('runs seeds on its threads with the results runSeed gives here, in seed order, across settings', async () => {
    const pool = new SeedPool(2, ENTRY)
    try {
      const lossy = { ...DEFAULT_SWARM, loss: 0.2 }
      const [plain, lossyResults] = [
        await pool.run(DEFAULT_SWARM, [2, 1]),
        await pool.run(lossy, [7]),
      ]
      expect(plain.map((r) => r.seed)).toEqual([1, 2])
      expect(plain).toEqual([1, 2].map((seed) => runSeed({ ...DEFAULT_SWARM, seed })))
      expect(lossyResults).toEqual([runSeed({ ...lossy, seed: 7 })])
    } finally {
      await pool.close()
    }
  }, 120_000)

  it('rejects with the seed that threw on a thread', async () => {
    const pool = new SeedPool(1, ENTRY)
    try {
      const broken = { ...DEFAULT_SWARM, makeup: undefined } as unknown as Omit<
        SwarmOptions,
        'seed'
      >
      const failure = await pool.run(broken, [5]).catch((error: unknown) => error)
      expect(failure).toBeInstanceOf(SeedRunError)
      expect((failure as SeedRunError).seed).toBe(5)
    } finally {
      await pool.close()
    }
  }, 120_000)
})
