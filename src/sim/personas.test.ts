import { describe, expect, it } from 'vitest'
import { PERSONA_NAMES, PERSONAS } from '../../test/mock-llm/personas'
import { SIM_PERSONA_NAMES, SIM_PERSONAS, personaCallMs, withPersona } from './personas'
import { createRng } from './rng'
import { runSeed } from './run'
import { DEFAULT_SWARM } from './swarm'

/** Seeds of the whole-swarm check: enough that some plan has a leaf needing code. */
const SEEDS = [7, 8, 9, 10]

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const calls = (name: (typeof SIM_PERSONA_NAMES)[number], n = 2_000) => {
  const rng = createRng(`persona-${name}`)
  return Array.from({ length: n }, () => personaCallMs(SIM_PERSONAS[name].timing, rng))
}

describe('simulator personas', () => {
  it('are the mock LLM’s personas, with its latencies', () => {
    expect([...SIM_PERSONA_NAMES]).toEqual([...PERSONA_NAMES])
    for (const name of SIM_PERSONA_NAMES) {
      const { medianMs, sigma, maxMs } = SIM_PERSONAS[name].timing
      expect({ medianMs, sigma, maxMs }, name).toEqual(PERSONAS[name].latency)
    }
  })

  it('time a call by its long-tailed latency and the retries its habits cost', () => {
    const slow = calls('slow')
    expect(median(slow)).toBeGreaterThan(5_000)
    expect(median(slow)).toBeLessThan(7_200)
    expect([...slow].sort((a, b) => a - b)[Math.floor(slow.length * 0.9)]).toBeGreaterThan(15_000)
    // half the calls of a truncating model are asked again: slower than the same model uncut
    expect(median(calls('truncating'))).toBeGreaterThan(median(calls('chatty')) * 1.2)
    expect(median(calls('rate-limited'))).toBeGreaterThan(median(calls('slow')) * 0.3)
  })

  it('finish plans under every persona, every leaf done (without tools, code leaves are written, not run)', () => {
    for (const name of SIM_PERSONA_NAMES) {
      let leaves = 0
      let done = 0
      for (const seed of SEEDS) {
        const result = runSeed({ ...withPersona(DEFAULT_SWARM, name), seed })
        expect(result.violations, `${name} seed ${seed}`).toEqual([])
        expect(result.converged, `${name} seed ${seed}`).toBe(true)
        expect(result.completed, `${name} seed ${seed}`).toBe(true)
        leaves += result.leaves
        done += result.acceptedResults
      }
      expect(done, name).toBe(leaves)
    }
  }, 120_000)
})
