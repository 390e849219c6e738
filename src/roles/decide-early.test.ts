import { beforeAll, describe, expect, it } from 'vitest'
import type { LlmOutcome } from './llm-contract'
import {
  stamp,
  type AcceptRecord,
  type ClaimRecord,
  type NodeRecord,
  type PlanRecord,
  type ScoreRecord,
} from '../protocol/records'
import { acceptCandidate } from '../plan/acceptance'
import { DECIDE_CHECK_DELAY_MS } from '../protocol/rules'
import { rendezvousOrder } from '../protocol/hash'
import { PlanState } from '../plan/state'
import { finishedRun, planWithout } from '../sim/finished.test-support'
import { createRng } from '../sim/rng'
import { fakePeerId } from '../sim/swarm'
import { createPeer, step, type Effects, type PeerInput } from './index'
import { derived, freeSlots } from './peer'
import { testConfig } from './leaf.test-support'

const rng = createRng('decide-early-test')
const T0 = 1_700_000_000_000

/** A finished run's records less everything its decider published for the root goal. */
let undecided: { plan: PlanState; goal: string; decide: string }
/** The same, less the root's votes too (kept in `votes`). */
let unscored: { plan: PlanState; votes: ScoreRecord[] }
/** Subgoals of the split the finished run accepted for the root (the one the decider picks again). */
let SPLIT = 0

beforeAll(() => {
  const { records, view } = finishedRun(7)
  const root = [...view.goals.values()].find((goal) => goal.depth === 0)!
  SPLIT = root.slots.length
  const plan = planWithout(
    records,
    (record) =>
      ((record.kind === 'accept' || record.kind === 'node') && record.goal === root.id) ||
      (record.kind === 'claim' && record.task === root.decide.id) ||
      (record.kind === 'failure' && record.subject === root.decide.id),
  )
  undecided = { plan, goal: root.id, decide: root.decide.id }
  const isVote = (record: PlanRecord) => record.kind === 'score' && record.goal === root.id
  unscored = {
    plan: planWithout([...plan.records()], isVote),
    votes: [...plan.records()].filter((r): r is ScoreRecord => isVote(r)),
  }
})

/** The only scorer present: first choice for the root's decide task (which has its votes, by default). */
function decider(records: PlanState = undecided.plan) {
  const plan = new PlanState()
  plan.merge(records)
  const peer = createPeer(testConfig(fakePeerId(rng), 'scorer'), T0, plan)
  let now = T0
  const fx: Effects[] = []
  const times: number[] = []
  const run = (inputs: PeerInput[] = [{ type: 'tick' }]) => {
    now += 250
    const effects = step(peer, inputs, now)
    fx.push(effects)
    times.push(now)
    return effects
  }
  const published = () => fx.flatMap((e) => e.publish)
  const classifyCalls = () =>
    fx.flatMap((e) => e.startLlm).filter((request) => request.id.startsWith('classify:'))
  /** Tick until this peer claims, then until it has asked for its check's round; both times. */
  const claimAndAsk = () => {
    const claimStep = () => fx.findIndex((e) => e.publish.some((r) => r.kind === 'claim'))
    for (let i = 0; i < 12 && claimStep() < 0; i++) run()
    const asked = () => fx.findIndex((e, i) => i > claimStep() && e.sync)
    for (let i = 0; i < 12 && asked() < 0; i++) run()
    return { claimedAt: times[claimStep()]!, askedAt: times[asked()]! }
  }
  return { peer, run, fx, published, classifyCalls, claimAndAsk }
}

const classified: LlmOutcome = {
  ok: true,
  kind: 'classify',
  value: { atomic: true, capability: 'can_write_text', reason: 'one step' },
  usage: { provider: 'offline', model: 'm', inputTokens: 10, outputTokens: 5, offline: true },
  attempts: 1,
}

describe('a decider classifies while its claim is checked with the neighbours', () => {
  it('starts the calls at its claim, holds their answers, and publishes once the check ends', () => {
    const { run, published, classifyCalls, claimAndAsk } = decider()
    for (let i = 0; i < 12 && !published().some((r) => r.kind === 'claim'); i++) run()
    const calls = classifyCalls()
    expect(calls.length).toBe(SPLIT) // the chosen split's subgoals, at the claim
    // the answers come back, and a round asked before the claim's check ends: nothing yet
    run([
      ...calls.map((call) => ({ type: 'llm' as const, requestId: call.id, outcome: classified })),
      { type: 'synced' },
    ])
    expect(published().some((r) => r.kind === 'accept' || r.kind === 'node')).toBe(false)
    const { claimedAt, askedAt } = claimAndAsk()
    expect(askedAt - claimedAt).toBeGreaterThanOrEqual(DECIDE_CHECK_DELAY_MS)
    expect(published().some((r) => r.kind === 'accept' || r.kind === 'node')).toBe(false)
    run([{ type: 'synced' }])
    const accept = published().find((r): r is AcceptRecord => r.kind === 'accept')
    const nodes = published().filter((r): r is NodeRecord => r.kind === 'node')
    expect(accept).toBeDefined()
    expect(nodes.map((node) => node.proposal)).toEqual(Array(SPLIT).fill(accept!.proposal))
    expect(classifyCalls().length).toBe(SPLIT) // no call made twice
  })

  it('keeps the split it began with when the check brings another with a better quorum', () => {
    const { peer, run, published, classifyCalls, claimAndAsk } = decider()
    for (let i = 0; i < 12 && !published().some((r) => r.kind === 'claim'); i++) run()
    const begun = classifyCalls()[0]!.id.split(':')[3]
    const goal = derived(peer).goals.get(undecided.goal)!
    const other = goal.proposals.find((p) => p.id !== begun)!
    const template = [...goal.votes.values()].flat()[0]!
    const votes = [fakePeerId(rng), fakePeerId(rng)].map((from) =>
      stamp<ScoreRecord>({ ...template, from, proposal: other.id, score: 1 } as never),
    )
    // the unanimous vote makes `other` the best quorum by the tie-break rules
    expect(acceptCandidate({ ...goal, votes: new Map([[other.id, votes]]) }, false)?.proposal).toBe(
      other.id,
    )
    // the votes come while the check still runs, then the check ends
    run(votes.map((record) => ({ type: 'record' as const, record })))
    expect(classifyCalls().length).toBe(SPLIT)
    claimAndAsk()
    run([{ type: 'synced' }])
    const accept = published().find((r): r is AcceptRecord => r.kind === 'accept')
    expect(accept?.proposal).toBe(begun)
    expect(classifyCalls().length).toBe(SPLIT)
  })

  it('publishes nothing and drops the answers when the check brings a better claim', () => {
    const { peer, run, published, classifyCalls, claimAndAsk } = decider()
    for (let i = 0; i < 12 && !published().some((r) => r.kind === 'claim'); i++) run()
    const mine = published().find((r) => r.kind === 'claim') as ClaimRecord
    const calls = classifyCalls()
    expect(calls.length).toBe(SPLIT)
    run(calls.map((call) => ({ type: 'llm', requestId: call.id, outcome: classified })))
    // a rival's claim of the same epoch that outranks ours, which the check brings
    let rival = fakePeerId(rng)
    while (rendezvousOrder(undecided.decide, [rival, mine.from])[0] !== rival)
      rival = fakePeerId(rng)
    const theirs = stamp<ClaimRecord>({ ...mine, from: rival } as never)
    claimAndAsk()
    run([{ type: 'record', record: theirs }, { type: 'synced' }])
    for (let i = 0; i < 8; i++) run()
    expect(derived(peer).tasks.get(undecided.decide)!.holder?.from).toBe(rival)
    expect(published().some((r) => r.kind === 'accept' || r.kind === 'node')).toBe(false)
    expect([...peer.work.keys()].filter((id) => id.startsWith('classify:'))).toEqual([])
  })

  it('claims once the goal has proposals, checks while the votes come, and decides at the quorum', () => {
    const { peer, run, published, classifyCalls, claimAndAsk } = decider(unscored.plan)
    const decided = () => published().some((r) => r.kind === 'accept' || r.kind === 'node')
    claimAndAsk()
    const claim = published().find((r): r is ClaimRecord => r.kind === 'claim')
    expect(claim?.task).toBe(undecided.decide)
    // the held claim takes no slot: the decider goes on scoring
    const scoring = [...peer.work.values()].filter((work) => work.kind === 'score').length
    expect(freeSlots(peer)).toBe(peer.config.capacity - scoring)
    run([{ type: 'synced' }]) // the check passes before any vote is in
    for (let i = 0; i < 8; i++) run()
    expect(decided()).toBe(false)
    expect(classifyCalls()).toEqual([])
    // the votes arrive: the accept and the classification calls go out at once
    run(unscored.votes.map((record) => ({ type: 'record' as const, record })))
    const accept = published().find((r): r is AcceptRecord => r.kind === 'accept')
    expect(accept?.basis).toBe('quorum')
    const calls = classifyCalls()
    expect(calls.length).toBe(SPLIT)
    // and each answer is published as it comes: the check has long passed
    run([{ type: 'llm', requestId: calls[0]!.id, outcome: classified }])
    expect(published().filter((r) => r.kind === 'node').length).toBe(1)
  })
})
