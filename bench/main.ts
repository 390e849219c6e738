/**
 * `npm run bench`: what leaderlessness costs. One run executes the same
 * workload two ways on this machine and compares them:
 *
 * - the swarm (swarm.ts): N real peers over libp2p on loopback with a real
 *   relay, the tabs' role code, the mock LLM over HTTP in "shape" mode;
 * - a centralized orchestrator (central.ts): one process making the same LLM
 *   calls (counts taken from what the swarm did) with the same concurrency,
 *   through runLlmTask and the same mock server, with function calls
 *   instead of gossip: what the swarm's design costs without a leader;
 * - a plain planner (central.ts, plain): one decomposition per goal, no
 *   competing proposals, no scores, as a plan-and-execute user gets: what
 *   voting itself costs, in time and tokens.
 *
 * The mock's scores are fixed (0.8: quorum at once) or realistic (spread,
 * some under 0.6, scorers that disagree; --scores realistic). --sweep runs
 * the sizes with fixed scores, then the default size with realistic ones.
 *
 * Progress goes to stdout as it happens; the last line is one JSON object
 * (see docs/PERFORMANCE.md for every field).
 */
import { setMaxListeners } from 'node:events'
import { writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { DEFAULT_CAPACITY } from '../src/runtime/runtime'
import { claimTimes, criticalPathCalls, summariseCalls } from './analysis'
import { joinBatchFor, parseArgs, procsFor, USAGE, type BenchOptions } from './args'
import { countRefused, countTokens } from './calls'
import { forkMockLlm, type MockProcess } from './mock-process'
import { splitRoles } from './split'
import { runSwarm, type SwarmRun } from './swarm'
import {
  chainsOf,
  chainSummary,
  median,
  medianRun,
  printComparison,
  round,
  sweepTable,
} from './report'
import { budgetFor, runCentralSide, runVirtual, withTotal } from './sides'

// libp2p hangs many listeners on shared abort signals; 64 peers in one process exceed the default 10
setMaxListeners(1000)

function goalTexts(goals: number): string[] {
  const base = 'Plan a two-week trip to Japan'
  return goals === 1
    ? [base]
    : Array.from({ length: goals }, (_, i) => `${base} (plan ${i + 1} of ${goals})`)
}

async function runSize(
  options: BenchOptions,
  nodePeers: number,
  tabs: number,
  mock: MockProcess,
  log: (line: string) => void,
  dump: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  // tabs are peers like any other: the roles and the central's pools count them
  const size = nodePeers + tabs
  const goals = goalTexts(options.goals)
  const procs = procsFor(nodePeers, options.procs)
  const capacity = options.capacity ?? DEFAULT_CAPACITY
  const split = splitRoles(size)
  const load = loadavg()[0]!
  const critical = (criticalPathCalls(options.depth) * options.latencyMs) / 1000
  log(
    `=== ${size} peers${tabs > 0 ? ` (${nodePeers} Node peers, ${tabs} Chromium tabs)` : ''} (${split.decomposer} decomposers, ${split.scorer} scorers, ${split.executor} executors, ` +
      `${split.observer} observer), ${goals.length} goal(s), branching ${options.branching}, depth ${options.depth}, ` +
      `${options.persona ? `persona ${options.persona}` : `latency ${options.latencyMs} ms`}, capacity ${capacity}, ${options.scores} scores; ` +
      `LLM critical path ${options.persona ? '(persona latency, not estimated)' : `${critical} s`}; ` +
      `load average ${load.toFixed(2)}`,
  )
  const common = {
    peers: size,
    tabs,
    roles: { ...split },
    goals: goals.length,
    branching: options.branching,
    depth: options.depth,
    latency_ms: options.latencyMs,
    capacity,
    scores: options.scores,
    T_critical_path_s: round(critical),
    persona: options.persona ?? null,
  }

  const virtual = await runVirtual(options, size, goals, log)
  if (options.virtualOnly) {
    dump[`${size}${options.scores === 'realistic' ? '-realistic' : ''}`] = { virtual: virtual.dump }
    return { mode: 'virtual', ...common, ...virtual.result }
  }

  await mock.resetSeeds()
  const swarm: SwarmRun = await runSwarm({
    peers: size,
    goals,
    depth: options.depth,
    baseUrl: `${mock.url}/v1`,
    capacity: options.capacity,
    procs,
    joinBatch: joinBatchFor(size, options.joinBatch),
    tabs,
    timeoutMs: options.timeoutS * 1000,
    log,
  })
  log(
    `central: the swarm's calls, pools of ${split.decomposer * capacity} / ${split.scorer * capacity} / ` +
      `${split.executor * capacity} (decompose / score / execute + roll-up)`,
  )
  await mock.resetSeeds()
  const central = await runCentralSide(options, size, mock, budgetFor(size, swarm.calls), goals)
  log(`central: done in ${central.seconds.toFixed(2)} s`)
  await mock.resetSeeds()
  // the plain planner takes no counts, only the swarm's prompts (the room they name)
  const plain = await runCentralSide(options, size, mock, budgetFor(size, swarm.calls), goals, true)
  log(
    `plain planner (one decomposition per goal, no voting): done in ${plain.seconds.toFixed(2)} s`,
  )

  const chains = chainsOf(
    goals,
    {
      calls: swarm.calls,
      startedAt: swarm.submittedAt,
      doneAt: swarm.doneAt,
      claims: swarm.tree ? claimTimes(swarm.tree, swarm.records) : null,
    },
    central,
  )
  log(`real run: swarm ${swarm.seconds.toFixed(2)} s, central ${central.seconds.toFixed(2)} s`)
  const match = printComparison(
    log,
    { calls: swarm.calls, startedAt: swarm.submittedAt },
    { calls: central.calls, startedAt: central.startedAt },
    chains,
  )
  dump[`${size}${options.scores === 'realistic' ? '-realistic' : ''}`] = {
    virtual: virtual.dump,
    real: { swarm: swarm.calls, central: central.calls, chains, traffic: swarm.traffic },
  }

  const swarmCalls = summariseCalls(swarm.calls)
  const centralCalls = summariseCalls(central.calls)
  const plainCalls = summariseCalls(plain.calls)
  const accepts = { quorum: 0, settled: 0, deadline: 0 }
  for (const record of swarm.records) if (record.kind === 'accept') accepts[record.basis]++
  // under a persona, every refused request (429, 5xx, 4xx) is a retry
  const refused = {
    swarm: countRefused(swarm.calls),
    central: countRefused(central.calls),
    plain: countRefused(plain.calls),
  }
  const tokens = {
    swarm: countTokens(swarm.calls),
    central: countTokens(central.calls),
    plain: countTokens(plain.calls),
  }
  const messages = swarm.traffic.map(
    (p) => p.traffic.published + p.traffic.received + p.traffic.synced,
  )
  const bytes = swarm.traffic.map(
    (p) => p.traffic.publishedBytes + p.traffic.receivedBytes + p.traffic.syncedBytes,
  )
  const result = {
    mode: 'real',
    ...common,
    procs,
    T_swarm_s: round(swarm.seconds),
    T_central_s: round(central.seconds),
    ratio: round(swarm.seconds / central.seconds, 3),
    T_plain_s: round(plain.seconds),
    ratio_to_plain: round(swarm.seconds / plain.seconds, 3),
    central_to_plain: round(central.seconds / plain.seconds, 3),
    accepts,
    tokens,
    refused,
    llm_calls: {
      swarm: withTotal(swarmCalls.made),
      central: withTotal(centralCalls.made),
      match,
      swarm_aborted: withTotal(swarmCalls.aborted),
      central_aborted: withTotal(centralCalls.aborted),
      swarm_failed: withTotal(swarmCalls.failed),
      plain: withTotal(plainCalls.made),
    },
    messages_per_peer: { median: median(messages), max: Math.max(...messages) },
    // from submit to done, so the figure compares across run lengths and sizes
    messages_per_peer_per_min: round(median(messages) / (swarm.seconds / 60), 1),
    bytes_per_peer: { median: median(bytes), max: Math.max(...bytes) },
    late_join_s: swarm.lateJoin ? round(swarm.lateJoin.seconds) : null,
    late_join_bytes: swarm.lateJoin?.bytes ?? null,
    late_join_records: swarm.lateJoin?.records ?? null,
    cpu_percent: round(swarm.cpuPercent, 1),
    cpu_seconds: round(swarm.cpuSeconds, 1),
    cpu_percent_central: round(central.cpuPercent, 1),
    cpu_seconds_central: round((central.cpuPercent * central.seconds) / 100, 1),
    event_loop_delay_ms: swarm.loopDelay,
    mesh_s: round(swarm.meshSeconds, 1),
    mesh_links: swarm.links,
    consistent: swarm.convergedSeconds !== null,
    converged_s: swarm.convergedSeconds === null ? null : round(swarm.convergedSeconds, 2),
    central_ok: central.ok,
    chain: { swarm: chainSummary(chains.swarmChain), central: chainSummary(chains.centralChain) },
    virtual: virtual.result,
    loadavg_1m: round(load),
  }
  log(
    `result: ${size} peers: T_swarm ${result.T_swarm_s} s, T_central ${result.T_central_s} s, ` +
      `critical path ${result.T_critical_path_s} s, ratio ${result.ratio} (virtual ${virtual.result.ratio}); ` +
      `messages/peer median ${result.messages_per_peer.median} max ${result.messages_per_peer.max} ` +
      `(${result.messages_per_peer_per_min}/min); mesh ${result.mesh_s} s; ` +
      `bytes/peer median ${result.bytes_per_peer.median} max ${result.bytes_per_peer.max}; ` +
      `late join ${result.late_join_s} s / ${result.late_join_bytes} B; CPU ${result.cpu_percent}% ` +
      `(${result.cpu_seconds} CPU-s); event-loop delay p99 ${swarm.loopDelay.p99} ms; ` +
      `all trees equal ${swarm.convergedSeconds === null ? 'not within 60 s' : `${result.converged_s} s after done`}`,
  )
  log(
    `result: ${size} peers, ${options.scores} scores: accepts ${accepts.quorum} quorum / ${accepts.settled} settled / ` +
      `${accepts.deadline} deadline; plain planner ${result.T_plain_s} s (swarm ${result.ratio_to_plain}×, central ` +
      `${result.central_to_plain}×); LLM calls swarm ${result.llm_calls.swarm.total}, central ${result.llm_calls.central.total}, ` +
      `plain ${result.llm_calls.plain.total}; tokens swarm ${tokens.swarm.total}, central ${tokens.central.total}, plain ${tokens.plain.total}`,
  )
  if (options.persona)
    log(
      `result: persona ${options.persona}: swarm ${result.T_swarm_s} s, ${result.llm_calls.swarm.total} requests ` +
        `(${refused.swarm} refused, each a retry), ${tokens.swarm.total} tokens; orchestrator ${result.T_central_s} s, ` +
        `${result.llm_calls.central.total} requests (${refused.central} refused), ${tokens.central.total} tokens; ` +
        `plain planner ${result.T_plain_s} s, ${result.llm_calls.plain.total} requests (${refused.plain} refused)`,
    )
  return result
}

async function main(): Promise<number> {
  let options: BenchOptions | 'help'
  try {
    options = parseArgs(process.argv.slice(2))
  } catch (error) {
    console.error((error as Error).message)
    return 2
  }
  if (options === 'help') {
    console.log(USAGE)
    return 0
  }
  const opts = options
  const log = opts.jsonOnly ? () => {} : (line: string) => console.log(line)
  const startedAt = Date.now()
  // the sweep: every size with the chosen scores, then the default size with realistic ones
  const largest = Math.max(...opts.sweepSizes)
  const runs: Array<{ size: number; tabs: number; options: BenchOptions }> = opts.sweep
    ? [
        ...opts.sweepSizes.map((size) => ({
          size,
          tabs: size === largest ? opts.tabs : 0,
          options: opts,
        })),
        ...(opts.scores === 'realistic'
          ? []
          : [{ size: opts.peers, tabs: 0, options: { ...opts, scores: 'realistic' as const } }]),
      ]
    : [{ size: opts.peers, tabs: opts.tabs, options: opts }]
  const results: Array<Record<string, unknown>> = []
  const dump: Record<string, unknown> = {}
  let failed = false
  for (const scores of ['fixed', 'realistic'] as const) {
    const mine = runs.filter((run) => run.options.scores === scores)
    if (mine.length === 0) continue
    const mock = await forkMockLlm({
      mode: 'shape',
      branching: opts.branching,
      latencyMs: opts.latencyMs,
      scores,
      ...(opts.persona ? { persona: opts.persona } : {}),
    })
    try {
      for (const { size, tabs, options } of mine) {
        try {
          const repeat = opts.sweep || opts.virtualOnly ? 1 : opts.repeat
          const each: Array<Record<string, unknown>> = []
          for (let i = 0; i < repeat; i++) {
            if (repeat > 1) log(`--- run ${i + 1} of ${repeat}`)
            each.push(await runSize(options, size, tabs, mock, log, dump))
            // keep every run's timelines, so the worst can be read as well as the last
            if (repeat > 1)
              for (const key of Object.keys(dump).filter((k) => !k.includes('#'))) {
                dump[`${key}#${i + 1}`] = dump[key]
                delete dump[key]
              }
          }
          results.push(repeat > 1 ? medianRun(each, log) : each[0]!)
        } catch (error) {
          failed = true
          const message = (error as Error).message
          log(`${size} peers: FAILED: ${message}`)
          results.push({ peers: size, scores, error: message })
        }
      }
    } finally {
      await mock.close()
    }
  }
  if (results.length > 1) for (const line of sweepTable(results)) log(line)
  if (opts.dump) {
    writeFileSync(opts.dump, JSON.stringify({ options: opts, results, runs: dump }))
    log(`bench: timelines written to ${opts.dump}`)
  }
  const wall = round((Date.now() - startedAt) / 1000, 1)
  log(`bench: finished in ${wall} s`)
  const out = opts.sweep ? { sweep: results, wall_s: wall } : { ...results[0], wall_s: wall }
  console.log(JSON.stringify(out))
  return failed ? 1 : 0
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error.stack ?? error.message)
    process.exit(1)
  },
)
