/**
 * Issue 44: under each persona of the mock LLM (real models' habits,
 * test/mock-llm/personas.ts) a swarm of headless agents over real libp2p
 * (a real relay, two decomposers, two scorers and two executors, the real
 * role code and the real providers over HTTP) finishes
 * its plan: every leaf done, the final plan there, each deliverable written
 * once (a wrapping the client cannot read would make it ask again), no
 * draft from a model's thinking taken for the answer, and every result the
 * model's real answer. One line per persona says what it cost in retries.
 *
 * The peers use all three wire formats (Anthropic, OpenAI, OpenAI-compatible
 * in text mode), each with its own key, as people in a room would. Persona
 * latencies and rate-limit windows are scaled down (TIME_SCALE); the
 * clients' own back-off is not, so retries cost real seconds.
 */
import { generateKeyPair } from '@libp2p/crypto/keys'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRelay } from '../relay/relay'
import type { ModelConfig } from '../src/llm/types'
import { silentLogger } from '../src/net/log'
import type { GoalView, PlanTree, SlotView, TaskView } from '../src/plan/tree'
import { deriveRoomKey, newRoomSecret } from '../src/protocol/room-key'
import type { CallEntry } from '../src/runtime/call-log'
import { createNodeRuntime } from '../src/runtime/node'
import type { PeerRuntime, Role } from '../src/runtime/types'
import { DRAFT_MARKER } from './mock-llm/habits'
import { PERSONA_MODEL_PREFIX, PERSONA_NAMES, type PersonaName } from './mock-llm/personas'
import { createMockLlmServer, type MockLlmServer, type MockRequestLog } from './mock-llm/server'

/**
 * Personas' latencies (medians 2 to 6 s) and the rate limiter's 10 s window
 * times this: a 3 s median becomes 60 ms, so ten swarms fit in the suite.
 */
const TIME_SCALE = 0.02
/**
 * The rate-limited persona's own scale: a 5 s window, so a 429's wait (up
 * to 5 s) outlasts the client's own first back-off (1 s) and only a client
 * that reads the signal waits long enough.
 */
const RATE_LIMIT_TIME_SCALE = 0.5
/** A retry may come this much before a 429's wait ends (timer and clock granularity). */
const WAIT_TOLERANCE_MS = 20
/**
 * Swarms side by side: each is 6 peers in this process, on a 2-core
 * machine (three at once did not link up within a minute at a load of 20).
 */
const AT_ONCE = 2
/** The personas that wait the longest (back-off, retries) start first, so the lanes end together. */
const SLOWEST_FIRST: PersonaName[] = ['rate-limited', 'no-tools', 'overloaded', 'truncating']
const GOAL = 'Plan a small picnic for four friends'
/**
 * The picnic has no leaf that needs code, so nothing would offer tools to
 * the server that refuses them: under no-tools, the goal asks for a script.
 */
const GOALS: Partial<Record<PersonaName, string>> = {
  'no-tools': 'Plan a small picnic for four friends, with a script that splits the costs',
}
const goalOf = (persona: PersonaName) => GOALS[persona] ?? GOAL
const DEPTH = 2
/** The whole plan, retries and back-off included; a stuck persona fails here, not by the suite's timeout. */
const PLAN_TIMEOUT_MS = 75_000
const MESH_TIMEOUT_MS = 45_000
/**
 * Links each peer needs before the goal goes in: with 6 peers, at least 3
 * each makes the graph connected (two parts would need 4 peers each), which
 * is all gossip needs; a full mesh took over 30 s on a loaded machine.
 */
const MIN_LINKS = 3
const POLL_MS = 100
const ROLES: Role[] = ['decomposer', 'decomposer', 'scorer', 'scorer', 'executor', 'executor']
/** Peer i speaks the i-th of these (cycled): every role meets every wire format. */
const PROVIDERS: ModelConfig['provider'][] = ['anthropic', 'openai-compatible', 'openai']

interface PersonaRun {
  persona: PersonaName
  seconds: number
  tree: PlanTree
  plan: string
  calls: CallEntry[]
  requests: MockRequestLog[]
}

let mock: MockLlmServer
let rateLimitMock: MockLlmServer
const mockFor = (persona: PersonaName) => (persona === 'rate-limited' ? rateLimitMock : mock)
let relay: Awaited<ReturnType<typeof createRelay>>
const runs = new Map<PersonaName, PersonaRun | Error>()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function waitFor(cond: () => boolean, ms: number, what: () => string): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`)
    await sleep(POLL_MS)
  }
}

/** A swarm that did not link up (not what this test is about): started again, once. */
class NoMesh extends Error {}

async function runPersona(persona: PersonaName, retried = false): Promise<PersonaRun> {
  const room = deriveRoomKey(`personas-${persona}`, newRoomSecret())
  const peers: PeerRuntime[] = []
  try {
    // no observer: every peer derives the same tree, and a seventh peer costs the lanes CPU
    const roles: Role[] = ROLES
    for (const [i, role] of roles.entries()) {
      const provider = PROVIDERS[i % PROVIDERS.length]!
      peers.push(
        await createNodeRuntime({
          room,
          role,
          relays: relay.multiaddrs,
          rtcBindAddress: '127.0.0.1',
          model: {
            provider,
            model: `${PERSONA_MODEL_PREFIX}${persona}`,
            // each person's own key: a provider's limits are per key
            apiKey: `key-${persona}-${i}`,
            baseUrl: `${mockFor(persona).url}/v1`,
          },
          // executors may run code and answer live questions from knowledge: every leaf has a taker
          tools: { runCode: true, webSearch: false, knowledgeAnswers: true },
          log: () => {},
        }),
      )
    }
    const linked = (p: PeerRuntime) => p.connections().direct + p.connections().other
    await waitFor(
      () => peers.every((p) => linked(p) >= MIN_LINKS),
      MESH_TIMEOUT_MS,
      () => `${persona}: ${MIN_LINKS} links per peer (${peers.map(linked).join(', ')})`,
    ).catch((error: Error) => {
      throw retried ? error : new NoMesh(error.message)
    })
    const observer = peers[0]!
    const startedAt = Date.now()
    const goal = await peers[0]!.submitGoal(goalOf(persona), DEPTH)
    const root = () => observer.tree().goals.find((g) => g.id === goal)
    await waitFor(
      () => root()?.status === 'done' || root()?.status === 'failed',
      PLAN_TIMEOUT_MS,
      () =>
        `${persona}: the plan to finish (${JSON.stringify(observer.tree().progress)}; ` +
        `${openLeaves(observer.tree())}; mock answered ${statuses(mockFor(persona), persona)}; ` +
        `execute calls: ${executeCalls(peers)})`,
    )
    return {
      persona,
      seconds: (Date.now() - startedAt) / 1000,
      tree: observer.tree(),
      plan: observer.exportPlan(goal, 'markdown'),
      calls: peers.flatMap((p) => p.calls()),
      requests: mockFor(persona).requests.filter((r) => r.persona === persona),
    }
  } catch (error) {
    if (!(error instanceof NoMesh)) throw error
    // seen twice at a load of 20, with the lanes' first swarms only: said, and started again
    console.log(`persona ${persona}: ${error.message}; starting its swarm again`)
    await Promise.allSettled(peers.splice(0).map((p) => p.stop()))
    return runPersona(persona, true)
  } finally {
    await Promise.allSettled(peers.map((p) => p.stop()))
  }
}

beforeAll(async () => {
  mock = await createMockLlmServer({ timeScale: TIME_SCALE })
  rateLimitMock = await createMockLlmServer({ timeScale: RATE_LIMIT_TIME_SCALE })
  relay = await createRelay({
    port: 0,
    privateKey: await generateKeyPair('Ed25519'),
    logger: silentLogger,
  })
  // PERSONAS=think,chatty runs only those (the others then fail as not run): for working on one
  const wanted = process.env.PERSONAS?.split(',')
  const queue = [
    ...SLOWEST_FIRST,
    ...PERSONA_NAMES.filter((p) => !SLOWEST_FIRST.includes(p)),
  ].filter((p) => !wanted || wanted.includes(p))
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const persona = next
      runs.set(
        persona,
        await runPersona(persona).catch((error: unknown) =>
          error instanceof Error ? error : new Error(String(error)),
        ),
      )
      report(persona)
    }
  }
  await Promise.all(Array.from({ length: AT_ONCE }, worker))
}, 170_000)

afterAll(async () => {
  await mock?.close()
  await rateLimitMock?.close()
  await relay?.stop()
})

/** How the mock answered a persona's requests, by task kind and status. */
function statuses(server: MockLlmServer, persona: PersonaName): string {
  const counts = new Map<string, number>()
  for (const r of server.requests.filter((r) => r.persona === persona)) {
    const key = `${r.taskKind ?? '?'} ${r.status}${r.tool ? ` ${r.tool}` : ''}`
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return [...counts].map(([k, n]) => `${k} ×${n}`).join(', ')
}

/** How the peers' execute calls ended, attempt by attempt (the call log). */
function executeCalls(peers: PeerRuntime[]): string {
  return peers
    .flatMap((p) => p.calls())
    .filter((c) => c.kind === 'execute')
    .map(
      (c) =>
        `${c.ok ? 'ok' : `failed (${c.error})`} [${c.attempts.map((a) => a.error ?? 'ok').join(' | ')}]`,
    )
    .join('; ')
}

/** What holds a plan up: each leaf not done, its capability and what its records say. */
function openLeaves(tree: PlanTree): string {
  const out: string[] = []
  const walk = (goal: GoalView) => {
    for (const slot of goal.slots) {
      if (slot.goal) walk(slot.goal)
      const leaf = slot.leaf
      if (!leaf || leaf.status === 'done') continue
      const why = [leaf.gap, ...leaf.failures.map((f) => f.detail)].filter(Boolean).join(' / ')
      out.push(
        `"${slot.text.slice(0, 50)}" ${slot.capability} ${leaf.status}${why ? `: ${why}` : ''}`,
      )
    }
  }
  tree.goals.forEach(walk)
  return out.join('; ')
}

/** Every leaf task and every roll-up of a goal tree. */
function deliverables(goal: GoalView): TaskView[] {
  const out: TaskView[] = [goal.rollup]
  for (const slot of goal.slots) {
    if (slot.leaf) out.push(slot.leaf)
    if (slot.goal) out.push(...deliverables(slot.goal))
  }
  return out
}

/**
 * 429s whose retry came before the wait they gave. A peer may make two
 * calls for the same task at once (two proposals alike, scored twice), so
 * each 429 is matched to the first later request of its key and task not
 * already matched that came after its wait; one that had later requests but
 * no such match was retried too soon.
 */
function earlyRetries(requests: readonly MockRequestLog[]): string[] {
  const early: string[] = []
  const refusals = requests
    .filter((r) => r.status === 429 && r.waitMs !== undefined)
    .sort((a, b) => a.at + a.waitMs! - (b.at + b.waitMs!))
  const matched = new Set<MockRequestLog>()
  for (const refused of refusals) {
    const same = requests.filter(
      (r) => r.at > refused.at && keyOf(r) === keyOf(refused) && r.taskHash === refused.taskHash,
    )
    const due = refused.at + refused.waitMs! - WAIT_TOLERANCE_MS
    const retry = same.find((r) => r.at >= due && !matched.has(r))
    if (retry) matched.add(retry)
    else if (same.length > 0)
      early.push(
        `${refused.signal} on ${refused.api} said ${refused.waitMs} ms; the same task came back after ` +
          same.map((r) => `${r.at - refused.at} ms`).join(', '),
      )
  }
  return early
}

const keyOf = (r: MockRequestLog) => r.headers['x-api-key'] ?? r.headers.authorization

/** A complete deliverable the mock wrote: an execute or roll-up answer, not cut, not a tool call. */
const written = (r: MockRequestLog) =>
  (r.taskKind === 'execute' || r.taskKind === 'rollup') &&
  r.status === 200 &&
  !r.cut &&
  r.tool !== 'code-call' &&
  r.answer !== undefined

/** The retries a persona cost: attempts past the first of every call, and what the mock refused. */
function report(persona: PersonaName): void {
  const run = runs.get(persona)
  if (!run || run instanceof Error) {
    console.log(`persona ${persona.padEnd(15)} FAILED: ${run?.message ?? 'did not run'}`)
    return
  }
  const retries = run.calls.reduce((n, c) => n + c.attempts.length - 1, 0)
  const failed = run.calls.filter((c) => !c.ok).length
  const refused = run.requests.filter((r) => r.status >= 400).length
  const cut = run.requests.filter((r) => r.cut).length
  const p = run.tree.progress
  console.log(
    `persona ${persona.padEnd(15)} ${run.seconds.toFixed(1).padStart(5)} s, ${p.leavesDone}/${p.leaves} leaves, ` +
      `${run.calls.length} calls, ${retries} retries, ${failed} failed calls; mock: ` +
      `${run.requests.length} requests, ${refused} refused, ${cut} cut`,
  )
}

/** Every slot under `goal`, child goals' too. */
function walkSlots(goal: GoalView): SlotView[] {
  return goal.slots.flatMap((slot) => [slot, ...(slot.goal ? walkSlots(slot.goal) : [])])
}

describe('personas: a swarm of headless agents under each of real models’ habits', () => {
  it.each(PERSONA_NAMES)('%s: the plan finishes, every deliverable written once', (persona) => {
    const run = runs.get(persona)
    if (run instanceof Error) throw run
    expect(run, `${persona} did not run`).toBeDefined()
    const { tree, requests } = run!
    const root = tree.goals[0]!
    expect(root.status).toBe('done')
    expect(tree.progress.leavesFailed).toBe(0)
    expect(tree.progress.leavesDone).toBe(tree.progress.leaves)
    expect(run!.plan).toContain(`# ${goalOf(persona)}`)
    expect(root.rollup.output?.length ?? 0).toBeGreaterThan(0)

    // a server that refuses tools runs no code: its code leaves are written, not run
    if (persona === 'no-tools') {
      const slots = walkSlots(root)
      expect(slots.some((slot) => slot.capability === 'can_run_code')).toBe(true)
      expect(
        slots.flatMap((slot) => slot.leaf?.steps ?? []).filter((s) => s.type === 'code'),
      ).toEqual([])
    }

    // nothing from a model's draft made it into the plan
    expect(JSON.stringify(tree)).not.toContain(DRAFT_MARKER)

    // a 429 said how long to wait: its retry (same key, same task) came no sooner
    expect(earlyRetries(requests), `${persona}: retries before the wait a 429 gave`).toEqual([])

    // each deliverable written once by each client: no wrapping made a client ask
    // for it again. Counted per key: two executors that each took the same leaf in
    // the same moment (each saw the other at capacity in its last beat, so each was
    // the first choice: roles/claims.ts) is the swarm's rare contention, which the
    // simulator counts (wasted executions), not a client's re-ask
    const complete = requests.filter(written)
    const perTask = new Map<string, number>()
    for (const r of complete) {
      const task = `${keyOf(r)}\n${r.taskHash!}`
      perTask.set(task, (perTask.get(task) ?? 0) + 1)
    }
    const twice = [...perTask.values()].filter((n) => n > 1).length
    expect(twice, `${persona}: deliverables a client wrote more than once`).toBe(0)

    // and each result is the model's real answer, whole (not a draft, not a cut)
    const answers = complete.map((r) =>
      String((r.answer as { output?: unknown }).output ?? '').trim(),
    )
    for (const task of deliverables(root)) {
      expect(task.status).toBe('done')
      const output = task.output ?? ''
      expect(
        answers.some((answer) => answer !== '' && output.includes(answer)),
        `${persona}: a result that is not one of the model's answers: ${output.slice(0, 120)}`,
      ).toBe(true)
    }
  })
})
