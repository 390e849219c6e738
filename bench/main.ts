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
import { createProvider, runLlmTask } from '../src/llm/index'
import type { ModelConfig } from '../src/llm/types'
import { DEFAULT_CAPACITY } from '../src/runtime/runtime'
import {
  byDepth,
  byStage,
  claimTimes,
  criticalChain,
  criticalPathCalls,
  perGoalBudget,
  summariseCalls,
  waves,
  type Segment,
} from './analysis'
import { joinBatchFor, parseArgs, procsFor, USAGE, type BenchOptions } from './args'
import {
  CallRecorder,
  countRefused,
  countTokens,
  describeCalls,
  KINDS,
  type KindCounts,
  type LlmCall,
} from './calls'
import { protocolBudget, runCentral, type CallBudget } from './central'
import { MAX_PROPOSALS_PER_GOAL, MAX_SCORES_PER_PROPOSAL } from '../src/protocol/rules'
import { forkMockLlm, type MockProcess } from './mock-process'
import { splitRoles } from './split'
import { runSwarm, type SwarmRun } from './swarm'
import { runVirtualCentral, runVirtualSwarm } from './virtual'

// libp2p hangs many listeners on shared abort signals; 64 peers in one process exceed the default 10
setMaxListeners(1000)

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0)
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits

function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const withTotal = (counts: KindCounts) => ({ ...counts, total: sum(Object.values(counts)) })

function goalTexts(goals: number): string[] {
  const base = 'Plan a two-week trip to Japan'
  return goals === 1
    ? [base]
    : Array.from({ length: goals }, (_, i) => `${base} (plan ${i + 1} of ${goals})`)
}

/**
 * The central's budget: the swarm's own proposal and score counts per goal,
 * and for goals the swarm's calls say nothing about, the protocol's caps.
 */
function budgetFor(size: number, calls: readonly LlmCall[]): CallBudget {
  const split = splitRoles(size)
  const fallback = protocolBudget(
    Math.min(split.decomposer, MAX_PROPOSALS_PER_GOAL),
    Math.min(split.scorer, MAX_SCORES_PER_PROPOSAL),
  )
  const perGoal = perGoalBudget(calls)
  return {
    proposals: (goal) => perGoal.get(goal.key)?.proposals ?? fallback.proposals(goal),
    scores: (goal) => perGoal.get(goal.key)?.scores ?? fallback.scores(goal),
  }
}

interface CentralRun {
  seconds: number
  startedAt: number
  doneAt: number
  calls: LlmCall[]
  cpuPercent: number
  ok: boolean
}

async function runCentralSide(
  options: BenchOptions,
  size: number,
  mock: MockProcess,
  budget: CallBudget,
  goals: string[],
  plain = false,
): Promise<CentralRun> {
  const split = splitRoles(size)
  const capacity = options.capacity ?? DEFAULT_CAPACITY
  const recorder = new CallRecorder()
  const model: ModelConfig = {
    provider: 'openai-compatible',
    model: 'mock',
    // one orchestrator, one key: under a rate-limited persona it has one key's allowance
    apiKey: 'bench-central',
    baseUrl: `${mock.url}/v1`,
  }
  const provider = createProvider(model, { fetch: recorder.fetchFor(-1) })
  const cpu0 = process.cpuUsage()
  const startedAt = Date.now()
  const results = await runCentral({
    roots: goals.map((text) => ({ text, maxDepth: options.depth })),
    pools: {
      decomposer: split.decomposer * capacity,
      scorer: split.scorer * capacity,
      executor: split.executor * capacity,
    },
    budget,
    llm: (task, signal) => runLlmTask(task, provider, { signal, seed: 'central' }),
    plain,
  })
  const doneAt = Date.now()
  const cpu = process.cpuUsage(cpu0)
  return {
    seconds: (doneAt - startedAt) / 1000,
    startedAt,
    doneAt,
    calls: describeCalls(recorder.calls),
    cpuPercent: (100 * (cpu.user + cpu.system)) / 1000 / (doneAt - startedAt),
    ok: results.every((r) => r.ok),
  }
}

function stageTable(swarm: Segment[], central: Segment[]): string[] {
  const s = byStage(swarm)
  const c = new Map(byStage(central).map((row) => [row.stage, row]))
  const lines = ['  critical chain, by stage          swarm s   central s']
  const seen = new Set<string>()
  for (const row of s) {
    seen.add(row.stage)
    const other = c.get(row.stage)
    lines.push(
      `  ${row.stage.padEnd(38)} ${row.seconds.toFixed(2).padStart(7)} ${other ? other.seconds.toFixed(2).padStart(11) : '          -'}`,
    )
  }
  for (const row of c.values()) {
    if (!seen.has(row.stage))
      lines.push(`  ${row.stage.padEnd(38)}       - ${row.seconds.toFixed(2).padStart(11)}`)
  }
  const depthS = byDepth(swarm)
  const depthC = new Map(byDepth(central).map((row) => [row.depth, row]))
  lines.push('  critical chain, by depth     swarm LLM / wait s   central LLM / wait s')
  for (const row of depthS) {
    const other = depthC.get(row.depth)
    lines.push(
      `  depth ${row.depth}                      ${row.llm.toFixed(2).padStart(6)} / ${row.wait.toFixed(2).padStart(5)}` +
        `      ${other ? `${other.llm.toFixed(2).padStart(6)} / ${other.wait.toFixed(2).padStart(5)}` : '-'}`,
    )
  }
  return lines
}

function chainSummary(segments: Segment[]) {
  const llm = sum(segments.filter((s) => s.llm).map((s) => s.to - s.from)) / 1000
  const wait = sum(segments.filter((s) => !s.llm).map((s) => s.to - s.from)) / 1000
  const stages: Record<string, number> = {}
  for (const row of byStage(segments)) stages[row.stage] = round(row.seconds)
  return { llm_s: round(llm), wait_s: round(wait), stages }
}

interface Comparison {
  swarmChain: Segment[]
  centralChain: Segment[]
}

interface Timeline {
  calls: LlmCall[]
  startedAt: number
  doneAt: number
}

/** The critical chains of both sides; the swarm's with claim times when known. */
function chainsOf(
  roots: string[],
  swarm: Timeline & { claims?: ReturnType<typeof claimTimes> | null },
  central: Timeline,
): Comparison {
  return {
    swarmChain: criticalChain({ ...swarm, roots }),
    centralChain: criticalChain({ ...central, roots }),
  }
}

function printComparison(
  log: (line: string) => void,
  swarm: { calls: LlmCall[]; startedAt: number },
  central: { calls: LlmCall[]; startedAt: number },
  chains: Comparison,
): boolean {
  const swarmCalls = summariseCalls(swarm.calls)
  const centralCalls = summariseCalls(central.calls)
  const match = KINDS.every((k) => swarmCalls.made[k] === centralCalls.made[k])
  const callsLine = (name: string, c: typeof swarmCalls) =>
    `  ${name.padEnd(8)} ` +
    KINDS.map(
      (k) =>
        `${k} ${c.made[k]}${c.aborted[k] ? ` (${c.aborted[k]} aborted)` : ''}${c.failed[k] ? ` (${c.failed[k]} failed)` : ''}`,
    ).join(', ')
  log('  LLM calls made (requests sent):')
  log(callsLine('swarm', swarmCalls))
  log(callsLine('central', centralCalls))
  log(
    `  ${match ? 'the same calls on both sides' : 'MISMATCH: the two sides did not make the same calls'}`,
  )
  for (const line of stageTable(chains.swarmChain, chains.centralChain)) log(line)
  log('  calls by depth and kind: swarm first start → last end (s)   | central')
  const cw = new Map(
    waves(central.calls, central.startedAt).map((w) => [`${w.depth}|${w.kind}`, w]),
  )
  for (const w of waves(swarm.calls, swarm.startedAt)) {
    const c = cw.get(`${w.depth}|${w.kind}`)
    log(
      `  depth ${w.depth} ${w.kind.padEnd(9)} ${String(w.calls).padStart(3)} calls ${w.first.toFixed(2).padStart(6)} → ${w.last.toFixed(2).padStart(6)}` +
        `   | ${c ? `${String(c.calls).padStart(3)} calls ${c.first.toFixed(2).padStart(6)} → ${c.last.toFixed(2).padStart(6)}` : '-'}`,
    )
  }
  return match
}

async function runVirtual(
  options: BenchOptions,
  size: number,
  goals: string[],
  log: (line: string) => void,
) {
  const vOptions = {
    peers: size,
    goals,
    depth: options.depth,
    branching: options.branching,
    latencyMs: options.latencyMs,
    capacity: options.capacity ?? DEFAULT_CAPACITY,
    gossipMs: options.gossipMs,
    scores: options.scores,
  }
  const swarm = runVirtualSwarm(vOptions)
  const central = await runVirtualCentral(vOptions, budgetFor(size, swarm.calls))
  const plain = await runVirtualCentral(vOptions, budgetFor(size, swarm.calls), true)
  const chains = chainsOf(
    goals,
    { calls: swarm.calls, startedAt: swarm.submittedAt, doneAt: swarm.doneAt },
    { calls: central.calls, startedAt: 0, doneAt: central.seconds * 1000 },
  )
  log(
    `virtual time (the protocol's own cost: no CPU, gossip ${options.gossipMs} ms a hop): ` +
      `swarm ${swarm.seconds.toFixed(2)} s, central ${central.seconds.toFixed(2)} s, ratio ${(swarm.seconds / central.seconds).toFixed(3)}; ` +
      `plain planner ${plain.seconds.toFixed(2)} s`,
  )
  const match = printComparison(
    log,
    { calls: swarm.calls, startedAt: swarm.submittedAt },
    { calls: central.calls, startedAt: 0 },
    chains,
  )
  const minutes = swarm.seconds / 60
  const perMin = (counts: number[]) => round(median(counts) / minutes, 1)
  const messagesPerMin = perMin(swarm.received)
  const presencePerMin = perMin(swarm.receivedPresence)
  log(
    `virtual time: records received per peer per minute (median): ${messagesPerMin}, ` +
      `of which presence beats ${presencePerMin}`,
  )
  return {
    result: {
      T_swarm_s: round(swarm.seconds),
      T_central_s: round(central.seconds),
      T_plain_s: round(plain.seconds),
      ratio: round(swarm.seconds / central.seconds, 3),
      ratio_to_plain: round(swarm.seconds / plain.seconds, 3),
      gossip_ms: options.gossipMs,
      messages_per_peer_per_min: messagesPerMin,
      presence_per_peer_per_min: presencePerMin,
      llm_calls: {
        swarm: withTotal(summariseCalls(swarm.calls).made),
        central: withTotal(summariseCalls(central.calls).made),
        plain: withTotal(summariseCalls(plain.calls).made),
        match,
      },
      chain: { swarm: chainSummary(chains.swarmChain), central: chainSummary(chains.centralChain) },
    },
    dump: { swarm: swarm.calls, central: central.calls, chains },
  }
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
  const plain = await runCentralSide(options, size, mock, budgetFor(size, []), goals, true)
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

/** The sweep's figures, one line per run. */
function sweepTable(results: ReadonlyArray<Record<string, unknown>>): string[] {
  const lines = [
    'sweep: peers scores     T_swarm T_central  ratio  T_plain swarm/plain  calls swarm/central/plain  tokens swarm/central/plain',
  ]
  for (const r of results) {
    if (r.error) {
      lines.push(
        `sweep: ${String(r.peers).padStart(5)} ${String(r.scores ?? '').padEnd(10)} FAILED`,
      )
      continue
    }
    const peers = r.tabs
      ? `${Number(r.peers) - Number(r.tabs)}+${String(r.tabs)}t`
      : String(r.peers)
    const calls = r.llm_calls as Record<string, { total: number }>
    const tokens = r.tokens as Record<string, { total: number }> | undefined
    lines.push(
      `sweep: ${peers.padStart(5)} ${String(r.scores).padEnd(10)} ${String(r.T_swarm_s).padStart(7)} ` +
        `${String(r.T_central_s).padStart(9)} ${String(r.ratio).padStart(6)} ${String(r.T_plain_s).padStart(8)} ` +
        `${String(r.ratio_to_plain ?? '-').padStart(11)}  ${calls.swarm?.total}/${calls.central?.total}/${calls.plain?.total ?? '-'}` +
        `${tokens ? `  ${tokens.swarm!.total}/${tokens.central!.total}/${tokens.plain!.total}` : ''}`,
    )
  }
  return lines
}

const swarmTokens = (r: Record<string, unknown>) =>
  Number((r.tokens as { swarm?: { total?: number } } | undefined)?.swarm?.total ?? NaN)

/** The run with the highest ratio (1-based), with its time and lag. */
function worstOf(
  runs: Array<Record<string, unknown>>,
  lag: (r: Record<string, unknown>) => number,
) {
  let worst = 0
  runs.forEach((r, i) => {
    if (Number(r.ratio) > Number(runs[worst]!.ratio)) worst = i
  })
  const r = runs[worst]!
  return { run: worst + 1, ratio: r.ratio, T_swarm_s: r.T_swarm_s, behind_critical_path_s: lag(r) }
}

/**
 * Of repeated runs of one size: the run with the median ratio, with every
 * run's ratio and lag behind the LLM critical path (the spread).
 */
function medianRun(runs: Array<Record<string, unknown>>, log: (line: string) => void) {
  const sorted = [...runs].sort((a, b) => Number(a.ratio) - Number(b.ratio))
  const mid = sorted[Math.floor((sorted.length - 1) / 2)]!
  const lag = (r: Record<string, unknown>) =>
    round(Number(r.T_swarm_s) - Number(r.T_critical_path_s))
  const repeats = {
    runs: runs.length,
    ratios: runs.map((r) => r.ratio),
    ratio_median: median(runs.map((r) => Number(r.ratio))),
    ratio_min: sorted[0]!.ratio,
    ratio_max: sorted.at(-1)!.ratio,
    T_swarm_s: runs.map((r) => r.T_swarm_s),
    T_central_s: runs.map((r) => r.T_central_s),
    behind_critical_path_s: runs.map(lag),
    behind_critical_path_median_s: median(runs.map(lag)),
    T_swarm_median_s: median(runs.map((r) => Number(r.T_swarm_s))),
    tokens_swarm: runs.map(swarmTokens),
    tokens_swarm_median: median(runs.map(swarmTokens)),
    // the issue's targets hold for every run, not only the median (issue 46): the slowest
    worst: worstOf(runs, lag),
  }
  log(
    `repeat: ${runs.length} runs of ${String(mid.peers)} peers: ratios ${repeats.ratios.join(', ')} ` +
      `(median ${repeats.ratio_median}, spread ${repeats.ratio_min}–${repeats.ratio_max}); swarm behind the ` +
      `LLM critical path by ${repeats.behind_critical_path_s.join(', ')} s (median ${repeats.behind_critical_path_median_s} s)`,
  )
  log(
    `repeat: swarm done after ${repeats.T_swarm_s.join(', ')} s (median ${repeats.T_swarm_median_s} s), ` +
      `tokens ${repeats.tokens_swarm.join(', ')} (median ${repeats.tokens_swarm_median}); worst run ` +
      `${repeats.worst.run}: ratio ${repeats.worst.ratio}, ${repeats.worst.T_swarm_s} s, ` +
      `${repeats.worst.behind_critical_path_s} s behind the critical path`,
  )
  return { ...mid, repeats }
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
