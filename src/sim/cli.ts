/**
 * `npm run sim -- --seeds N [options]`: run N seeded swarms and print, as the
 * last line, one JSON object summing them up. A seed that breaks an
 * invariant is printed with its violations, so it can be replayed alone
 * with `--seeds 1 --start <seed>`.
 */
import { parseArgs } from 'node:util'
import { availableParallelism } from 'node:os'
import { isMainThread } from 'node:worker_threads'
import { DEFAULT_SWARM, type SwarmOptions } from './options'
import { SeedPool, serveSeeds } from './pool'
import { summarise } from './summary'
import { isSimPersona, SIM_PERSONA_NAMES, withPersona } from './personas'
import { LOW_SCORES, MAX_WASTED_SHARE, SUITES, type SimSetting } from './suites'

const HELP = `usage: npm run sim -- [options]
  --seeds N          how many seeds to run (default 100)
  --start S          first seed (default 1)
  --goal TEXT        the goal (repeat for several goals at once)
  --decomposers N --scorers N --executors N --observers N   the swarm's make-up (3/3/4/1)
  --loss P           probability that one delivery is lost (default 0)
  --duplicate P      probability that a delivery happens twice (default 0.05)
  --depth N          depth cap (default 3)
  --branching N      fixed subgoals per split (default: random 2..4)
  --fail-rate P      probability an LLM call fails after its retries (default 0)
  --score-fail-rate P      the same for score calls alone (default: --fail-rate)
  --low-scores       scores that often miss the 0.6 threshold and disagree (suites.ts LOW_SCORES)
  --no-crashes       no peer crashes
  --hostile          a hostile member attacks the plan throughout (sim/hostile.ts)
  --flood            a member floods the room with goals throughout (sim/flood.ts)
  --steer            goals ask for approval; their authors approve late, veto,
                     redo leaves, pause and resume (sim/steer.ts)
  --removals N       N times per run the owner removes a member, who works on
                     regardless (sim/removal.ts)
  --max-crashes N    up to N crashes (and restarts) per run (default 1)
  --partitions N     N times per run the swarm splits in two for 5-30 s, then heals
  --freezes N        N times per run a peer freezes for longer than a lease, then thaws
  --codec            every record signed, encoded and verified by the real codec
  --strict           also fail on an unfinished plan (unless it never could finish:
                     a goal no live scorers can accept, run.ts), a duplicate child
                     goal, an accept conflict, or wasted executions above 1% of leaves
  --suite NAME       run a named set of settings (ci: 1,250 seeds; sweep: 12,500);
                     implies --strict
  --persona NAME     LLM calls timed as under a mock persona (sim/personas.ts: its
                     long-tailed latency and the retries its habits cost)
  --skew-s S         clocks skewed up to S seconds either way (default 300)
  --sync MODE        anti-entropy: real (the reconciliation core), oracle, or mixed (real on odd seeds; default)
  --workers N        parallel worker threads (default: cores)
  --verbose          one line per seed
  --fingerprints     one JSON line per seed: its whole result, with its replica's
                     record-set and tree ids (diff two runs to prove outcomes equal)`

function optionsFromArgs(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      seeds: { type: 'string', default: '100' },
      start: { type: 'string', default: '1' },
      goal: { type: 'string', multiple: true },
      decomposers: { type: 'string' },
      scorers: { type: 'string' },
      executors: { type: 'string' },
      observers: { type: 'string' },
      loss: { type: 'string' },
      duplicate: { type: 'string' },
      depth: { type: 'string' },
      branching: { type: 'string' },
      'fail-rate': { type: 'string' },
      'score-fail-rate': { type: 'string' },
      'low-scores': { type: 'boolean', default: false },
      'no-crashes': { type: 'boolean', default: false },
      hostile: { type: 'boolean', default: false },
      steer: { type: 'boolean', default: false },
      flood: { type: 'boolean', default: false },
      'max-crashes': { type: 'string' },
      removals: { type: 'string' },
      partitions: { type: 'string' },
      freezes: { type: 'string' },
      codec: { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
      suite: { type: 'string' },
      'skew-s': { type: 'string' },
      persona: { type: 'string' },
      sync: { type: 'string', default: 'mixed' },
      workers: { type: 'string' },
      verbose: { type: 'boolean', default: false },
      fingerprints: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  })
  const num = (value: string | undefined, fallback: number) =>
    value === undefined ? fallback : Number(value)
  const base: Omit<SwarmOptions, 'seed'> = {
    ...DEFAULT_SWARM,
    makeup: {
      decomposers: num(values.decomposers, DEFAULT_SWARM.makeup.decomposers),
      scorers: num(values.scorers, DEFAULT_SWARM.makeup.scorers),
      executors: num(values.executors, DEFAULT_SWARM.makeup.executors),
      observers: num(values.observers, DEFAULT_SWARM.makeup.observers),
    },
    goals: values.goal?.length ? values.goal : DEFAULT_SWARM.goals,
    loss: num(values.loss, DEFAULT_SWARM.loss),
    duplicate: num(values.duplicate, DEFAULT_SWARM.duplicate),
    maxDepth: num(values.depth, DEFAULT_SWARM.maxDepth),
    crashes: !values['no-crashes'],
    hostile: values.hostile,
    steer: values.steer,
    flood: values.flood,
    maxCrashes: num(values['max-crashes'], 1),
    ...(values.removals ? { removals: num(values.removals, 0) } : {}),
    partitions: num(values.partitions, 0),
    freezes: num(values.freezes, 0),
    codec: values.codec,
    maxSkewMs: num(values['skew-s'], DEFAULT_SWARM.maxSkewMs / 1000) * 1000,
    ...(values.sync === 'mixed' ? {} : { realSync: values.sync === 'real' }),
    model: {
      ...DEFAULT_SWARM.model,
      failRate: num(values['fail-rate'], 0),
      ...(values['score-fail-rate']
        ? { failRates: { score: Number(values['score-fail-rate']) } }
        : {}),
      ...(values.branching ? { branching: Number(values.branching) } : {}),
      ...(values['low-scores'] ? { scores: LOW_SCORES } : {}),
    },
  }
  const persona = values.persona
  if (persona !== undefined && !isSimPersona(persona))
    throw new Error(`--persona wants one of ${SIM_PERSONA_NAMES.join(', ')} (got ${persona})`)
  return {
    help: values.help,
    base: persona ? withPersona(base, persona) : base,
    seeds: num(values.seeds, 100),
    start: num(values.start, 1),
    workers: Math.max(1, num(values.workers, availableParallelism())),
    verbose: values.verbose,
    fingerprints: values.fingerprints,
    strict: values.strict || values.suite !== undefined,
    suite: values.suite,
  }
}

/** The options of a suite's setting, on top of the defaults. */
function settingOptions(setting: SimSetting): Omit<SwarmOptions, 'seed'> {
  const { failRate, failRates, scores, ...options } = setting.options
  return {
    ...DEFAULT_SWARM,
    ...options,
    model: {
      ...DEFAULT_SWARM.model,
      failRate: failRate ?? 0,
      ...(failRates ? { failRates } : {}),
      ...(scores ? { scores } : {}),
    },
  }
}

/** What a strict run does not accept, besides a seed that did not converge. */
function strictProblems(summary: ReturnType<typeof summarise>, exclusive: boolean): string[] {
  const problems: string[] = []
  const unfinished = summary.seeds - summary.seeds_completed - summary.seeds_unfinishable
  if (unfinished > 0) problems.push(`${unfinished} plans did not finish`)
  if (!exclusive) return problems
  if (summary.duplicate_child_goals > 0)
    problems.push(`${summary.duplicate_child_goals} duplicate child goals`)
  if (summary.accept_conflicts > 0) problems.push(`${summary.accept_conflicts} accept conflicts`)
  if (summary.overturned_results > 0)
    problems.push(`${summary.overturned_results} finished results overturned by an earlier epoch`)
  if (summary.wasted_executions > MAX_WASTED_SHARE * summary.leaves)
    problems.push(`${summary.wasted_executions} wasted executions for ${summary.leaves} leaves`)
  return problems
}

/** Run one setting, print its failing seeds and summary; true when it passes. */
async function runSetting(
  name: string | undefined,
  base: Omit<SwarmOptions, 'seed'>,
  seeds: number[],
  args: ReturnType<typeof optionsFromArgs>,
  pool: SeedPool,
  exclusive = true,
): Promise<boolean> {
  const started = Date.now()
  const results = await pool.run(base, seeds)
  for (const result of results) {
    if (args.fingerprints)
      console.log(JSON.stringify({ ...(name ? { setting: name } : {}), ...result }))
    if (args.verbose || result.violations.length > 0 || result.unfinishable) {
      const verdict = result.violations.length
        ? `FAILED ${result.violations.join('; ')}`
        : result.unfinishable
          ? `unfinishable (${result.unfinishable})`
          : 'ok'
      console.log(
        `seed ${result.seed}: ${verdict}` +
          ` goals=${result.goals} leaves=${result.leaves} results=${result.acceptedResults}` +
          ` wasted=${result.wastedExecutions} dupChildren=${result.duplicateChildren} conflicts=${result.acceptConflicts} t=${result.virtualSeconds}s`,
      )
    }
  }
  const summary = summarise(results, (Date.now() - started) / 1000)
  const problems = args.strict ? strictProblems(summary, exclusive) : []
  console.log(JSON.stringify({ ...(name ? { setting: name } : {}), ...summary, problems }))
  return summary.seeds_converged === summary.seeds && problems.length === 0
}

const range = (start: number, count: number) => Array.from({ length: count }, (_, i) => start + i)

async function main(): Promise<void> {
  const args = optionsFromArgs(process.argv.slice(2))
  if (args.help) {
    console.log(HELP)
    return
  }
  const suite = args.suite === undefined ? undefined : SUITES[args.suite]
  if (args.suite !== undefined && !suite)
    throw new Error(`no suite ${args.suite}: ${Object.keys(SUITES).join(', ')}`)
  const seedCount = suite ? Math.max(...suite.map((setting) => setting.seeds)) : args.seeds
  // one set of threads for the whole run: starting one costs some ten seeds' CPU (pool.ts)
  const pool = new SeedPool(Math.min(args.workers, seedCount), import.meta.url)
  try {
    if (!(await runAll(args, suite, pool))) process.exitCode = 1
  } finally {
    await pool.close()
  }
}

async function runAll(
  args: ReturnType<typeof optionsFromArgs>,
  suite: SimSetting[] | undefined,
  pool: SeedPool,
): Promise<boolean> {
  let ok = true
  if (suite) {
    const started = Date.now()
    for (const setting of suite) {
      const seeds = range(setting.start, setting.seeds)
      const exclusive = setting.exclusive ?? true
      ok =
        (await runSetting(setting.name, settingOptions(setting), seeds, args, pool, exclusive)) &&
        ok
    }
    const seeds = suite.reduce((sum, setting) => sum + setting.seeds, 0)
    console.log(
      JSON.stringify({
        suite: args.suite,
        seeds,
        passed: ok,
        wall_seconds: Math.round((Date.now() - started) / 100) / 10,
      }),
    )
  } else {
    ok = await runSetting(undefined, args.base, range(args.start, args.seeds), args, pool)
  }
  return ok
}

if (isMainThread) {
  main().catch((err) => {
    console.error(err)
    process.exitCode = 1
  })
} else {
  serveSeeds()
}
