/**
 * The steps a result carries (issue 24), fitted to the protocol: each step
 * valid (src/protocol/steps.ts), at most MAX_STEPS, and the whole record
 * under MAX_RECORD_BYTES. What does not fit goes, oldest code run first
 * (the last run is the one the deliverable quotes), then the oldest of the
 * rest. Pure: the executor calls it before it signs the record.
 */
import { canonicalJson } from '../protocol/canonical'
import { MAX_RECORD_BYTES } from '../protocol/limits'
import { MAX_STEPS, stepSchema, type Step } from '../protocol/steps'

/**
 * Room for the fields the record gets after this check: v, id, room, from
 * and their keys (about 200 bytes), with a wide margin.
 */
const RECORD_FIELDS_BYTES = 1_024

const encoder = new TextEncoder()

function bytes(value: unknown): number {
  return encoder.encode(canonicalJson(value)).length
}

/** Index of the step to drop first: the oldest code run, else the oldest step. */
function firstToDrop(steps: readonly Step[]): number {
  const code = steps.findIndex((step) => step.type === 'code')
  return code >= 0 ? code : 0
}

export function fitSteps(draft: object, steps: readonly Step[]): Step[] {
  const kept = steps.filter((step) => stepSchema.safeParse(step).success)
  while (kept.length > MAX_STEPS) kept.splice(firstToDrop(kept), 1)
  const budget = MAX_RECORD_BYTES - RECORD_FIELDS_BYTES
  while (kept.length > 0 && bytes({ ...draft, steps: kept }) > budget) {
    kept.splice(firstToDrop(kept), 1)
  }
  return kept
}
