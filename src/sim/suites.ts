/**
 * Named sets of simulator settings, run with `npm run sim -- --suite <name>`.
 * `ci` is what CI runs on every change (1,250 seeds, some 96 to 123 s of
 * CPU on one pool of two threads, measured at load 5 to 12); `sweep` is the
 * same settings with ten times the seeds, for a change to the protocol's
 * rules.
 */
import type { SimModelOptions } from './model'
import { DEFAULT_SWARM } from './options'
import { SIM_PERSONA_NAMES, withPersona } from './personas'
import type { SwarmOptions } from './swarm'

export interface SimSetting {
  name: string
  /** first seed; settings use disjoint seed ranges */
  start: number
  seeds: number
  options: Partial<Omit<SwarmOptions, 'seed' | 'model'>> & {
    failRate?: number
    failRates?: SimModelOptions['failRates']
    scores?: SimModelOptions['scores']
  }
  /**
   * false: a strict run checks convergence and completion only, not that
   * tasks were done once. During a partition longer than a lease both sides
   * carry on (docs/PROTOCOL.md §5.3): work done twice is the price of
   * staying available, and the heal settles on one outcome.
   */
  exclusive?: boolean
}

/** Wasted executions tolerated, as a share of leaves, before a strict run fails. */
export const MAX_WASTED_SHARE = 0.01

/**
 * Scores that often miss the threshold and on which scorers disagree: a
 * proposal's quality in [0.25, 0.75], each scorer ± 0.2 around it. About
 * half the goals get no quorum, so they are decided as settled (or, when a
 * crash or a lost vote leaves a vote pending, at the deadline).
 */
export const LOW_SCORES: NonNullable<SimModelOptions['scores']> = {
  min: 0.25,
  max: 0.75,
  disagreement: 0.2,
}

const CI: SimSetting[] = [
  // the everyday case: reordering, duplicates, slow tails, skewed clocks, late timers, a crash
  { name: 'baseline', start: 1, seeds: 300, options: {} },
  // scores below the threshold and scorers that disagree, with some loss, failures and crashes
  {
    name: 'low-scores',
    start: 40_001,
    seeds: 100,
    options: { scores: LOW_SCORES, loss: 0.05, failRate: 0.05, maxCrashes: 2 },
  },
  // a fifth of deliveries lost, a tenth of LLM calls failing, up to three crashes and restarts
  {
    name: 'loss-failures-crashes',
    start: 10_001,
    seeds: 300,
    options: { loss: 0.2, duplicate: 0.2, failRate: 0.1, maxCrashes: 3 },
  },
  // the swarm splits in two twice and heals, with crashes and some loss and failures
  {
    name: 'partitions',
    start: 20_001,
    seeds: 240,
    options: { partitions: 2, maxCrashes: 2, loss: 0.05, failRate: 0.05 },
    exclusive: false,
  },
  // authors steer their goals: approvals that come late, vetoes with notes, redos, pauses
  {
    name: 'steering',
    start: 50_001,
    seeds: 40,
    options: { steer: true },
    // a veto sends an accepted split back: a goal's second accept is the point, not a conflict
    exclusive: false,
  },
  // peers frozen mid-task for longer than a lease (background tabs, closed lids), then thawed
  {
    name: 'freezes',
    start: 60_001,
    seeds: 100,
    options: { freezes: 3, loss: 0.05, failRate: 0.05 },
  },
  // replies cut at the token limit: two score calls in five fail (issues 44, 46);
  // the scorers try again and others step in, so every split is still accepted and
  // every subgoal classified by its voters (subgoals.ts)
  {
    name: 'score-failures',
    start: 70_001,
    seeds: 40,
    options: { failRate: 0.05, failRates: { score: 0.4 }, loss: 0.05, maxCrashes: 2 },
  },
  // the owner removes two members at random points; they work on regardless, and what
  // they write after their removal must count nowhere (issue 55; about 1.6 times a
  // baseline seed's CPU: every derivation filters by membership)
  {
    name: 'removals',
    start: 100_001,
    seeds: 20,
    options: { removals: 2, loss: 0.05, failRate: 0.05 },
    // a removed member's work in flight is done again by others
    exclusive: false,
  },
  // every record signed, encoded and verified by the real codec (ten times the CPU a seed)
  {
    name: 'codec',
    start: 30_001,
    seeds: 60,
    options: { codec: true, loss: 0.1, duplicate: 0.1, failRate: 0.05, maxCrashes: 2 },
  },
]

/** Seeds per persona in CI: ten personas, some 5 s of CPU in all. */
const PERSONA_SEEDS = 5
/** First seed of the persona settings; each persona gets its own range. */
const PERSONA_START = 80_001
const PERSONA_SEED_RANGE = 1_000

/**
 * Calls timed as under each mock persona (sim/personas.ts): long-tailed
 * latency, the retries habits cost, and (no-tools) executors without code.
 */
CI.push(
  ...SIM_PERSONA_NAMES.map((persona, i) => {
    const { executorCapabilities } = withPersona(DEFAULT_SWARM, persona)
    return {
      name: `persona-${persona}`,
      start: PERSONA_START + i * PERSONA_SEED_RANGE,
      seeds: PERSONA_SEEDS,
      options: { persona, executorCapabilities },
    }
  }),
)

export const SUITES: Record<string, SimSetting[]> = {
  ci: CI,
  sweep: CI.map((setting) => ({
    ...setting,
    start: setting.start * 10,
    seeds: setting.seeds * 10,
  })),
}
