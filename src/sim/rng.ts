/** A small seeded PRNG (sfc32): the simulator's only source of randomness. */
export interface Rng {
  next(): number
  int(min: number, maxInclusive: number): number
  chance(p: number): boolean
  pick<T>(items: readonly T[]): T
  fork(label: string): Rng
}

function hashString(text: string): number {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 16777619)
  }
  return h >>> 0
}

export function createRng(seed: number | string): Rng {
  let a = hashString(`a${seed}`)
  let b = hashString(`b${seed}`)
  let c = hashString(`c${seed}`)
  let d = hashString(`d${seed}`)
  const next = (): number => {
    a >>>= 0
    b >>>= 0
    c >>>= 0
    d >>>= 0
    let t = (a + b) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    d = (d + 1) | 0
    t = (t + d) | 0
    c = (c + t) | 0
    return (t >>> 0) / 4294967296
  }
  for (let i = 0; i < 12; i++) next()
  const rng: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    fork: (label) => createRng(`${seed}/${label}/${next()}`),
  }
  return rng
}
