/**
 * Goal families the offline model recognises, each with a few alternative
 * decompositions (so different peers propose different splits) and the
 * essential aspects a good split covers (used by the offline scorer).
 *
 * Step templates are strings with placeholders filled per goal (fill.ts):
 * {the} "the two-week trip to Japan", {obj} "two-week trip to Japan",
 * {act} "running a marathon", {move} "the move to Berlin", {goal} the goal
 * as a clause, {place} "Japan"; {name|fallback} when a value may be missing.
 * A step is [template, after, optional]:
 * `after` lists earlier steps it depends on; optional steps may be dropped.
 */

export type StepSpec = readonly [template: string, after?: readonly number[], optional?: boolean]

export interface Variant {
  /** one sentence on why this split; the decomposer's rationale */
  why: string
  steps: readonly StepSpec[]
}

export interface Aspect {
  name: string
  re: RegExp
}

export interface Family {
  id: string
  /** matched against a top-level goal; deeper goals use activities.ts */
  match: RegExp
  aspects: readonly Aspect[]
  variants: readonly Variant[]
}

export const aspect = (name: string, re: RegExp): Aspect => ({ name, re })
