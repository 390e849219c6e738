/**
 * Deterministic randomness for the offline model: the same (task, seed)
 * always gives the same answer, and different seeds (peers) differ.
 */

/** 32-bit FNV-1a offset basis and prime: a tiny, well-spread string hash. */
const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

export function hashString(text: string): number {
  let h = FNV_OFFSET
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, FNV_PRIME)
  }
  return h >>> 0
}

/** mulberry32 increment: the constant from its reference implementation. */
const MULBERRY_INCREMENT = 0x6d2b79f5
/** 2^32, to map a 32-bit integer into [0, 1). */
const UINT32_RANGE = 4294967296

export interface Rng {
  /** uniform in [0, 1) */
  next(): number
  /** integer in [0, n) */
  int(n: number): number
  pick<T>(items: readonly T[]): T
  /** true with probability p */
  chance(p: number): boolean
  shuffle<T>(items: readonly T[]): T[]
}

/** A seeded generator (mulberry32) keyed by any number of strings. */
export function rngFor(...keys: string[]): Rng {
  let state = hashString(keys.join('\u241f'))
  const next = (): number => {
    state = (state + MULBERRY_INCREMENT) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / UINT32_RANGE
  }
  const int = (n: number): number => Math.floor(next() * n)
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('pick from an empty list')
      return items[int(items.length)] as T
    },
    chance: (p: number) => next() < p,
    shuffle: <T>(items: readonly T[]): T[] => {
      const out = [...items]
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(i + 1)
        ;[out[i], out[j]] = [out[j] as T, out[i] as T]
      }
      return out
    },
  }
}
