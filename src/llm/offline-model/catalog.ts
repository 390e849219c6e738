/**
 * The goal families the offline model recognises (travel, learning,
 * software, events, writing, business, moving house, fitness, research).
 * Each has a few alternative decompositions and the aspects a good split
 * covers; the data is in families-1.ts and families-2.ts.
 */
import type { Family } from './catalog-types'
import { FAMILIES_1 } from './families-1'
import { FAMILIES_2 } from './families-2'

export type { Aspect, Family, StepSpec, Variant } from './catalog-types'

export const FAMILIES: readonly Family[] = [...FAMILIES_1, ...FAMILIES_2]

/** The family whose pattern matches the text most often (ties: catalog order). */
export function familyOf(text: string): Family | undefined {
  let best: Family | undefined
  let bestHits = 0
  for (const family of FAMILIES) {
    const hits = text.match(new RegExp(family.match.source, 'gi'))?.length ?? 0
    if (hits > bestHits) {
      best = family
      bestHits = hits
    }
  }
  return best
}
