/**
 * The sides of a bench run other than the real swarm: the centralized
 * orchestrator (and the plain planner) over the same mock LLM, and the
 * virtual-time run of the same role cores.
 */
import { createProvider, runLlmTask } from '../src/llm/index'
import type { Capability, ModelConfig } from '../src/llm/types'
import { MAX_PROPOSALS_PER_GOAL, MAX_SCORES_PER_PROPOSAL } from '../src/protocol/rules'
import { DEFAULT_CAPACITY } from '../src/runtime/runtime'
import { perGoalBudget, summariseCalls } from './analysis'
import type { BenchOptions } from './args'
import { CallRecorder, describeCalls, type KindCounts, type LlmCall } from './calls'
import { protocolBudget, runCentral, type CallBudget } from './central'
import type { MockProcess } from './mock-process'
import { chainsOf, chainSummary, median, printComparison, round, sum } from './report'
import { splitRoles } from './split'
import { runVirtualCentral, runVirtualSwarm } from './virtual'

export const withTotal = (counts: KindCounts) => ({ ...counts, total: sum(Object.values(counts)) })

/**
 * What the room's executors offer, as most of the swarm's decompose and
 * score prompts said it (they all do once presence has settled), or none
 * when no prompt said it.
 */
export function roomOf(calls: readonly LlmCall[]): Capability[] | undefined {
  const said = new Map<string, { room: Capability[]; n: number }>()
  for (const call of calls) {
    if (!call.room) continue
    const key = JSON.stringify(call.room)
    const seen = said.get(key) ?? { room: call.room, n: 0 }
    seen.n++
    said.set(key, seen)
  }
  return [...said.values()].sort((a, b) => b.n - a.n)[0]?.room
}

/**
 * The central's budget: the swarm's own proposal and score counts per goal,
 * and for goals the swarm's calls say nothing about, the protocol's caps;
 * and the room its prompts named, so that the orchestrator's prompts are the
 * swarm's very own.
 */
export function budgetFor(size: number, calls: readonly LlmCall[]): CallBudget {
  const split = splitRoles(size)
  const fallback = protocolBudget(
    Math.min(split.decomposer, MAX_PROPOSALS_PER_GOAL),
    Math.min(split.scorer, MAX_SCORES_PER_PROPOSAL),
  )
  const perGoal = perGoalBudget(calls)
  const room = roomOf(calls)
  return {
    ...(room ? { room } : {}),
    proposals: (goal) => perGoal.get(goal.key)?.proposals ?? fallback.proposals(goal),
    scores: (goal) => perGoal.get(goal.key)?.scores ?? fallback.scores(goal),
  }
}

export interface CentralRun {
  seconds: number
  startedAt: number
  doneAt: number
  calls: LlmCall[]
  cpuPercent: number
  ok: boolean
}

export async function runCentralSide(
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

export async function runVirtual(
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
