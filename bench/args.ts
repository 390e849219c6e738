/** Command-line options of `npm run bench`. */
import { isPersonaName, PERSONA_NAMES, type PersonaName } from '../test/mock-llm/personas'
import { MIN_PEERS } from './split'

export interface BenchOptions {
  peers: number
  goals: number
  branching: number
  depth: number
  latencyMs: number
  /** per-peer concurrent LLM calls; undefined = the runtime's default */
  capacity: number | undefined
  sweep: boolean
  sweepSizes: number[]
  /** child processes for the peers: 0 = in this process; undefined = automatic */
  procs: number | undefined
  jsonOnly: boolean
  /** give up on the swarm after this long (per size) */
  timeoutS: number
  /** only the virtual-time comparison (protocol cost alone; seconds to run) */
  virtualOnly: boolean
  /** one gossip hop in the virtual-time run, ms */
  gossipMs: number
  /** write every call timeline and chain to this JSON file */
  dump: string | undefined
  /** peers join this many at a time; undefined = automatic */
  joinBatch: number | undefined
  /**
   * the mock's scores: 'fixed' (every proposal 0.8: quorum at once) or
   * 'realistic' (spread, some under 0.6, scorers that disagree)
   */
  scores: 'fixed' | 'realistic'
  /**
   * Chromium tabs added to the Node peers (bench/tabs.ts); in a sweep, to its
   * largest size only
   */
  tabs: number
  /**
   * runs of one size, reported as the run with the median ratio plus the
   * spread: runs of one code move by ±0.05 (docs/PERFORMANCE.md). Not in a
   * sweep, where each size runs once.
   */
  repeat: number
  /**
   * the mock LLM's persona (test/mock-llm/personas.ts): real models' habits
   * and latency on both sides; undefined: the plain mock at --latency-ms
   */
  persona: PersonaName | undefined
}

export const DEFAULTS: BenchOptions = {
  peers: 11,
  goals: 1,
  branching: 3,
  depth: 3,
  latencyMs: 1000,
  capacity: undefined,
  sweep: false,
  sweepSizes: [4, 8, 11, 16, 32, 64],
  procs: undefined,
  jsonOnly: false,
  timeoutS: 240,
  virtualOnly: false,
  gossipMs: 10,
  dump: undefined,
  joinBatch: undefined,
  scores: 'fixed',
  tabs: 0,
  repeat: 3,
  persona: undefined,
}

export const USAGE = `npm run bench -- [options]

  --peers N        swarm size (default 11: 3 decomposers, 3 scorers, 4 executors, 1 observer)
  --goals G        concurrent root goals (default 1)
  --branching B    subgoals per split, 2..6 (default 3)
  --depth D        depth cap of the tree (default 3)
  --latency-ms L   mock LLM latency per call (default 1000)
  --capacity C     concurrent LLM calls per peer (default: the runtime's, 4)
  --procs P        child processes for the peers (0: all in this process;
                   default: 2, or 0 for 4 peers)
  --join-batch K   peers join K at a time, each batch once the mesh is full
                   (default: all at once up to 16 peers, else 4)
  --scores S       the mock's scores: fixed (every proposal 0.8, quorum at once;
                   the default) or realistic (spread, some under 0.6, scorers
                   that disagree)
  --tabs T         add T Chromium tabs to the N Node peers (Debian's Chromium via
                   Playwright, the built app, the mock LLM picked in the page);
                   roles are split over N + T; in a sweep, only its largest size
                   gets the tabs (default 0)
  --sweep          run 4, 8, 11, 16, 32 and 64 peers (or --sizes a,b,c), then
                   --peers with realistic scores
  --sizes LIST     sizes for --sweep, comma-separated
  --timeout-s S    give up on a swarm run after S seconds (default 240)
  --virtual-only   only the virtual-time comparison (the protocol's own cost,
                   no CPU or transport; takes seconds)
  --gossip-ms MS   one gossip hop in the virtual-time run (default 10)
  --dump FILE      write the call timelines and critical chains to FILE (JSON)
  --repeat R       run the size R times (default 3) and report the run with the
                   median ratio, with every run's ratio (the spread); a sweep
                   runs each size once
  --persona NAME   the mock answers with a real model's habits and latency
                   (${PERSONA_NAMES.join(', ')}; docs/ARCHITECTURE.md);
                   its latency replaces --latency-ms; prints the retries it cost
  --json-only      print only the final JSON line
  --help           this text`

function int(
  name: string,
  value: string | undefined,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const n = Number(value)
  if (value === undefined || !Number.isInteger(n) || n < min || n > max) {
    throw new Error(
      `${name} wants an integer from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''} (got ${value ?? 'nothing'})`,
    )
  }
  return n
}

/** Parses argv (without node and the script); throws with a readable message on bad input. */
export function parseArgs(argv: readonly string[]): BenchOptions | 'help' {
  const options: BenchOptions = { ...DEFAULTS, sweepSizes: [...DEFAULTS.sweepSizes] }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined]
    const value = () => inline ?? argv[++i]
    switch (flag) {
      case '--peers':
        options.peers = int('--peers', value(), MIN_PEERS)
        break
      case '--goals':
        options.goals = int('--goals', value(), 1)
        break
      case '--branching':
        options.branching = int('--branching', value(), 2, 6)
        break
      case '--depth':
        options.depth = int('--depth', value(), 1, 5)
        break
      case '--latency-ms':
        options.latencyMs = int('--latency-ms', value(), 0)
        break
      case '--capacity':
        options.capacity = int('--capacity', value(), 1)
        break
      case '--procs':
        options.procs = int('--procs', value(), 0, 16)
        break
      case '--join-batch':
        options.joinBatch = int('--join-batch', value(), 1)
        break
      case '--tabs':
        options.tabs = int('--tabs', value(), 0, 32)
        break
      case '--sweep':
        options.sweep = true
        break
      case '--sizes': {
        const list = value()
        options.sweepSizes = (list ?? '').split(',').map((s) => int('--sizes', s.trim(), MIN_PEERS))
        options.sweep = true
        break
      }
      case '--timeout-s':
        options.timeoutS = int('--timeout-s', value(), 10)
        break
      case '--virtual-only':
        options.virtualOnly = true
        break
      case '--gossip-ms':
        options.gossipMs = int('--gossip-ms', value(), 0)
        break
      case '--dump': {
        const file = value()
        if (!file) throw new Error('--dump wants a file name')
        options.dump = file
        break
      }
      case '--scores': {
        const scores = value()
        if (scores !== 'fixed' && scores !== 'realistic')
          throw new Error(`--scores wants fixed or realistic (got ${scores ?? 'nothing'})`)
        options.scores = scores
        break
      }
      case '--persona': {
        const name = value()
        if (name === undefined || !isPersonaName(name))
          throw new Error(
            `--persona wants one of ${PERSONA_NAMES.join(', ')} (got ${name ?? 'nothing'})`,
          )
        options.persona = name
        break
      }
      case '--json-only':
        options.jsonOnly = true
        break
      case '--repeat':
        options.repeat = int('--repeat', value(), 1, 20)
        break
      case '--help':
      case '-h':
        return 'help'
      default:
        throw new Error(`unknown option ${arg}\n\n${USAGE}`)
    }
  }
  return options
}

/** How many peers join at a time unless told: all up to 16, then 4 (see swarm.ts). */
export function joinBatchFor(peers: number, joinBatch: number | undefined): number {
  if (joinBatch !== undefined) return joinBatch
  return peers > 16 ? 4 : peers
}

/**
 * Child processes for a swarm of `peers` unless told: two (one per core)
 * above 4 peers, which measured faster than one process from 8 peers up
 * (docs/PERFORMANCE.md); a 4-peer swarm idles in one.
 */
export function procsFor(peers: number, procs: number | undefined): number {
  if (procs !== undefined) return procs
  return peers > 4 ? 2 : 0
}
