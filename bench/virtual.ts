/**
 * The same workload in virtual time: the protocol's own cost, without CPU,
 * event-loop lag or transport.
 *
 * - The swarm: the real role core (src/roles: the same createPeer/step the
 *   runtime drives) for every peer, each ticked every TICK_MS as the driver
 *   does, every record delivered to every other peer after a fixed gossip
 *   delay, every anti-entropy round a claimant asks for ended after one
 *   round trip (two hops), every LLM call answered by the mock LLM's own shape-mode answers
 *   after exactly L ms.
 * - The central orchestrator: runCentral itself, with LLM calls that take
 *   exactly L ms of virtual time.
 *
 * Both produce the LLM call timeline the real runs produce, so the same
 * critical-chain analysis applies. What remains between the two is what the
 * protocol's rules cost: staggers, claim windows, warm-up, who may score or
 * claim what and when, and per-peer capacity versus shared pools.
 */
import type { LlmOutcome, LlmTask } from '../src/llm/types'
import { newGoal, type WireRecord } from '../src/protocol/records'
import { TICK_MS } from '../src/runtime/cadence'
import { linkGraph } from '../src/net/topology'
import { createPeer, step, type Effects, type PeerInput, type PeerState } from '../src/roles/index'
import { derived } from '../src/roles/room-view'
import { EventQueue } from '../src/sim/queue'
import { createRng } from '../src/sim/rng'
import { fakePeerId } from '../src/sim/swarm'
import { shapeAnswer } from '../test/mock-llm/answers'
import { PATH_SEPARATOR, type LlmCall } from './calls'
import { runCentral, type CallBudget } from './central'
import { roleList, splitRoles, type RoleSplit } from './split'

export interface VirtualOptions {
  peers: number
  goals: string[]
  depth: number
  branching: number
  latencyMs: number
  capacity: number
  /**
   * one gossip hop, in ms: a record reaches a peer after as many hops as the
   * shortest path to it over the real link topology (src/net/topology.ts,
   * a full mesh up to DIRECT_LINKS + 1 peers)
   */
  gossipMs: number
  /** when the goals are submitted: after every peer heard every other */
  submitAtMs?: number
  seed?: number
  /** give up after this much virtual time */
  limitMs?: number
  /** the mock's scores: 'fixed' (0.8, the default) or 'realistic' (answers.ts) */
  scores?: 'fixed' | 'realistic'
}

export interface VirtualRun {
  split: RoleSplit
  seconds: number
  submittedAt: number
  doneAt: number
  calls: LlmCall[]
  /** records published per peer (presence included) */
  published: number[]
  /** records received per peer from submit to done: all, and presence beats alone */
  received: number[]
  receivedPresence: number[]
}

/** Hops from every peer to every other over the link graph the real nodes build. */
export function hopMatrix(peerIds: readonly string[]): Uint16Array[] {
  const index = new Map(peerIds.map((id, i) => [id, i]))
  const graph = linkGraph(peerIds)
  const links = peerIds.map((id) => new Set([...graph.get(id)!].map((other) => index.get(other)!)))
  return peerIds.map((_, from) => {
    const hops = new Uint16Array(peerIds.length).fill(0xffff)
    hops[from] = 0
    const queue = [from]
    for (let head = 0; head < queue.length; head++) {
      const at = queue[head]!
      for (const next of links[at]!) {
        if (hops[next] !== 0xffff) continue
        hops[next] = hops[at]! + 1
        queue.push(next)
      }
    }
    return hops
  })
}

const SHAPE = { score: 0.8, capability: 'can_write_text' as const }
const usage = {
  provider: 'openai-compatible',
  model: 'mock',
  inputTokens: 0,
  outputTokens: 0,
  offline: false,
}

/**
 * The mock LLM's answers, seeded as the mock server seeds them (the n-th
 * asking of the same prompt gets seed `mock-n`), so realistic scores are the
 * same in virtual time as over HTTP. One answerer per side.
 */
function answerer(options: VirtualOptions): (task: LlmTask) => LlmOutcome {
  const seen = new Map<string, number>()
  const shape = { ...SHAPE, branching: options.branching, scores: options.scores ?? 'fixed' }
  return (task) => {
    const key = JSON.stringify(task)
    const n = seen.get(key) ?? 0
    seen.set(key, n + 1)
    const value = shapeAnswer(task, shape, `mock-${n}`)
    return { ok: true, kind: task.kind, value, usage, attempts: 1 } as LlmOutcome
  }
}

function callOf(task: LlmTask, peer: number, start: number): LlmCall {
  const item = task.kind === 'execute' ? task.task : task.kind === 'score' ? task.rationale : null
  return {
    peer,
    kind: task.kind,
    goal: task.path.join(PATH_SEPARATOR),
    depth: task.path.length - 1,
    item,
    start,
    end: start,
    status: 'ok',
  }
}

type Event =
  | { type: 'deliver'; to: number; input: PeerInput }
  | { type: 'tick'; peer: number }
  | { type: 'llm'; peer: number; requestId: string; outcome: LlmOutcome; call: LlmCall }
  | { type: 'submit'; peer: number; text: string }

export function runVirtualSwarm(options: VirtualOptions): VirtualRun {
  const split = splitRoles(options.peers)
  const roles = roleList(split)
  const rng = createRng(options.seed ?? 1)
  const answer = answerer(options)
  const queue = new EventQueue<Event>()
  let now = 0
  const peers: PeerState[] = roles.map((role, index) =>
    createPeer(
      {
        peerId: fakePeerId(rng),
        room: 'virtual',
        role,
        capabilities:
          role === 'executor' ? ['can_write_text', 'can_run_code', 'can_query_api'] : [],
        capacity: options.capacity,
        model: 'openai-compatible/mock',
        offline: false,
      },
      now + index, // peers start a millisecond apart
    ),
  )
  const published = peers.map(() => 0)
  const received = peers.map(() => 0)
  const receivedPresence = peers.map(() => 0)
  const hops = hopMatrix(peers.map((peer) => peer.config.peerId))
  const running = new Map<string, { call: LlmCall; cancelled: boolean }>()
  const calls: LlmCall[] = []

  const broadcast = (from: number, record: WireRecord) => {
    const input: PeerInput =
      record.kind === 'presence'
        ? { type: 'presence', presence: record }
        : { type: 'record', record }
    peers.forEach((_, to) => {
      if (to !== from)
        queue.push(now + hops[from]![to]! * options.gossipMs, { type: 'deliver', to, input })
    })
  }
  const apply = (index: number, fx: Effects) => {
    // an anti-entropy round a claimant asked for: one round trip; gossip here loses
    // nothing, so it brings no record, only the end of the round
    if (fx.sync)
      queue.push(now + 2 * options.gossipMs, {
        type: 'deliver',
        to: index,
        input: { type: 'synced' },
      })
    for (const record of fx.publish) {
      published[index]!++
      broadcast(index, record)
    }
    for (const id of fx.abortLlm) {
      const entry = running.get(`${index}:${id}`)
      if (entry && !entry.cancelled) {
        entry.cancelled = true
        entry.call.status = 'aborted'
        entry.call.end = now
      }
    }
    for (const request of fx.startLlm) {
      const call = callOf(request.task, index, now)
      calls.push(call)
      running.set(`${index}:${request.id}`, { call, cancelled: false })
      const outcome = answer(request.task)
      queue.push(now + options.latencyMs, {
        type: 'llm',
        peer: index,
        requestId: request.id,
        outcome,
        call,
      })
    }
  }
  const stepPeer = (index: number, input: PeerInput) =>
    apply(index, step(peers[index]!, input, now))

  peers.forEach((_, index) => {
    const phase = Math.floor((index * TICK_MS) / peers.length)
    queue.push(phase, { type: 'tick', peer: index })
  })
  const submitAt = options.submitAtMs ?? 8_000
  const workers = roles.filter((role) => role !== 'observer').length
  options.goals.forEach((text, i) =>
    queue.push(submitAt, { type: 'submit', peer: i % workers, text }),
  )
  const witness = split.observer > 0 ? roles.length - 1 : 0
  const limit = submitAt + (options.limitMs ?? 30 * 60_000)
  let roots: string[] = []
  let doneAt = NaN

  for (let event = queue.pop(); event; event = queue.pop()) {
    now = event.at
    const e = event.value
    switch (e.type) {
      case 'deliver':
        if (now >= submitAt) {
          received[e.to]!++
          if (e.input.type === 'presence') receivedPresence[e.to]!++
        }
        stepPeer(e.to, e.input)
        break
      case 'tick':
        stepPeer(e.peer, { type: 'tick' })
        queue.push(now + TICK_MS, e)
        break
      case 'llm': {
        const entry = running.get(`${e.peer}:${e.requestId}`)
        running.delete(`${e.peer}:${e.requestId}`)
        if (!entry || entry.cancelled) break
        e.call.end = now
        stepPeer(e.peer, { type: 'llm', requestId: e.requestId, outcome: e.outcome })
        break
      }
      case 'submit': {
        const peer = peers[e.peer]!
        const goal = newGoal('virtual', peer.config.peerId, e.text, now, options.depth)
        roots = [...roots, goal.id]
        stepPeer(e.peer, { type: 'record', record: goal })
        published[e.peer]!++
        broadcast(e.peer, goal)
        break
      }
    }
    if (e.type === 'deliver' && e.to === witness && roots.length === options.goals.length) {
      const plan = derived(peers[witness]!)
      if (roots.every((id) => plan.goals.get(id)?.status === 'done')) {
        doneAt = now
        break
      }
    }
    if (now > limit) break
  }
  if (Number.isNaN(doneAt))
    throw new Error(`virtual swarm: not done after ${(limit - submitAt) / 1000} s`)
  return {
    split,
    seconds: (doneAt - submitAt) / 1000,
    submittedAt: submitAt,
    doneAt,
    calls,
    published,
    received,
    receivedPresence,
  }
}

export interface VirtualCentralRun {
  seconds: number
  calls: LlmCall[]
}

/** runCentral with LLM calls that take exactly `latencyMs` of virtual time. */
export async function runVirtualCentral(
  options: VirtualOptions,
  budget: CallBudget,
  plain = false,
): Promise<VirtualCentralRun> {
  const split = splitRoles(options.peers)
  const answer = answerer(options)
  let now = 0
  const timers = new EventQueue<() => void>()
  const calls: LlmCall[] = []
  const llm = (task: LlmTask, signal?: AbortSignal): Promise<LlmOutcome> => {
    const call = callOf(task, -1, now)
    calls.push(call)
    return new Promise((resolve, reject) => {
      let settled = false
      signal?.addEventListener(
        'abort',
        () => {
          if (settled) return
          settled = true
          call.status = 'aborted'
          call.end = now
          reject(new DOMException('aborted', 'AbortError'))
        },
        { once: true },
      )
      timers.push(now + options.latencyMs, () => {
        if (settled) return
        settled = true
        call.end = now
        resolve(answer(task))
      })
    })
  }
  let done = false
  let doneAt = 0
  const run = runCentral({
    roots: options.goals.map((text) => ({ text, maxDepth: options.depth })),
    pools: {
      decomposer: split.decomposer * options.capacity,
      scorer: split.scorer * options.capacity,
      executor: split.executor * options.capacity,
    },
    budget,
    llm,
    plain,
  }).finally(() => {
    done = true
    doneAt = now
  })
  const drain = () => new Promise<void>((resolve) => setImmediate(resolve))
  await drain()
  while (!done) {
    const next = timers.pop()
    if (!next) break
    now = next.at
    next.value()
    await drain()
  }
  await run
  return { seconds: doneAt / 1000, calls }
}
