/**
 * What a simulated run looks like: the swarm's make-up and the adversity it
 * meets. Every choice within these bounds comes from the run's seed.
 */
import type { Capability } from '../protocol/capabilities'
import type { Effects } from '../roles/index'
import { DEFAULT_CAPABILITY_MIX, type SimModelOptions } from './model'
import type { SimPersonaName } from './personas'
import type { SimPeer, Swarm } from './swarm'

export interface SwarmMakeup {
  decomposers: number
  scorers: number
  executors: number
  observers: number
}

export interface SwarmOptions {
  seed: number
  makeup: SwarmMakeup
  goals: string[]
  maxDepth: number
  /** probability that one delivery of a message to one peer is lost */
  loss: number
  /** probability that a delivery happens twice */
  duplicate: number
  /** delivery delay: usually uniform in [min, max]; with slowChance up to slowMax */
  delay: { min: number; max: number; slowChance: number; slowMax: number }
  /** crash random peers (restarting them, or not, at random) */
  crashes: boolean
  /** at most this many crashes per run (default 1; never the last peer of a role) */
  maxCrashes?: number
  /** this many times per run, the swarm splits in two for 5 to 30 s, then heals */
  partitions?: number
  /**
   * this many times per run, a peer (not an observer) is frozen for longer
   * than a lease, then thaws: a background tab, a laptop lid closed
   * mid-task
   */
  freezes?: number
  /** every record travels as signed bytes through the real codec (wire.ts) */
  codec?: boolean
  /** clocks are skewed by up to this much either way */
  maxSkewMs: number
  /** fixed clock skews by peer index, overriding the random ones */
  skews?: Record<number, number>
  /** timers fire every tickMs plus up to tickLateMs late (background tabs) */
  tickMs: number
  tickLateMs: number
  llmLatency: { min: number; max: number }
  /**
   * a mock persona's timing in place of llmLatency: a long-tailed latency
   * and the retries its habits cost (sim/personas.ts)
   */
  persona?: SimPersonaName
  model: SimModelOptions
  /** anti-entropy: each peer syncs with a random peer this often */
  syncIntervalMs: number
  capacity: number
  /** per executor, its capabilities (cycled); default: all can write, some code, some API */
  executorCapabilities: Capability[][]
  /** executors whose model cannot run code write code leaves nobody runs (roles/types.ts); default false */
  writesUnrunCode?: boolean
  maxVirtualMs: number
  /** anti-entropy by the real reconciliation core (true) or an oracle (false); default: odd seeds */
  realSync?: boolean
  /** a hostile member (sim/hostile.ts) attacks the plan throughout the run */
  hostile?: boolean
  /** a member floods the room with goals throughout the run (sim/flood.ts) */
  flood?: boolean
  /**
   * goals ask their author to approve splits, and the author approves late,
   * vetoes, redoes leaves, pauses and resumes (sim/steer.ts)
   */
  steer?: boolean
  /**
   * every peer is a member of its own, and this many times per run the
   * room's owner removes one (sim/removal.ts), who works on regardless
   */
  removals?: number
  /** the room's owner (its member id): set by runSeed for removals */
  owner?: string
  /** called after every step, for scenario tests (e.g. crash a peer right after it claims) */
  onStep?: (sim: Swarm, peer: SimPeer, effects: Effects, now: number) => void
}

export const DEFAULT_SWARM: Omit<SwarmOptions, 'seed'> = {
  makeup: { decomposers: 3, scorers: 3, executors: 4, observers: 1 },
  goals: ['Plan a two-week trip to Japan'],
  maxDepth: 3,
  loss: 0,
  duplicate: 0.05,
  delay: { min: 2, max: 80, slowChance: 0.05, slowMax: 1_500 },
  crashes: true,
  maxSkewMs: 5 * 60_000,
  tickMs: 250,
  tickLateMs: 1_000,
  llmLatency: { min: 300, max: 3_000 },
  model: { failRate: 0, capabilities: DEFAULT_CAPABILITY_MIX },
  syncIntervalMs: 15_000,
  capacity: 4,
  executorCapabilities: [
    ['can_write_text', 'can_run_code', 'can_query_api'],
    ['can_write_text', 'can_run_code'],
    ['can_write_text', 'can_query_api'],
    ['can_write_text'],
  ],
  maxVirtualMs: 30 * 60_000,
}
