/**
 * Deterministic draws for the mock LLM's personas: the same (seed, keys)
 * always gives the same numbers, so both sides of a bench meet the same
 * latencies. The hash is the offline model's (src/llm/offline-model/words.ts).
 */
import { hashString } from '../../src/llm/offline-model/words'

export { hashString }

/** mulberry32 increment: the constant from its reference implementation. */
const MULBERRY_INCREMENT = 0x6d2b79f5
/** 2^32, to map a 32-bit integer into [0, 1). */
const UINT32_RANGE = 4294967296

/** A seeded generator (mulberry32) keyed by any number of strings: next() is uniform in [0, 1). */
export function rngFor(...keys: string[]): { next(): number } {
  let state = hashString(keys.join('\u241f'))
  return {
    next: () => {
      state = (state + MULBERRY_INCREMENT) >>> 0
      let t = state
      t = Math.imul(t ^ (t >>> 15), t | 1)
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
      return ((t ^ (t >>> 14)) >>> 0) / UINT32_RANGE
    },
  }
}
