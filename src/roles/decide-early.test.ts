import { beforeAll, describe, expect, it } from 'vitest'
import {
  stamp,
  type AcceptRecord,
  type ClaimRecord,
  type PlanRecord,
  type ScoreRecord,
} from '../protocol/records'
import { DECIDE_CHECK_DELAY_MS } from '../protocol/rules'
import { rendezvousOrder } from '../protocol/hash'
import { PlanState } from '../plan/state'
import { finishedRun, planWithout } from '../sim/finished.test-support'
import { createRng } from '../sim/rng'
import { fakePeerId } from '../sim/swarm'
import { createPeer, step, type Effects, type PeerInput } from './index'
import { derived } from './room-view'
import { freeSlots } from './work'
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
      (record.kind === 'accept' && record.goal === root.id) ||
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
  /** LLM calls this peer started for the root goal's decision: none (its voters classify) */
  const decideCalls = () =>
    fx.flatMap((e) => e.startLlm).filter((request) => !request.id.startsWith('score:'))
  /** Tick until this peer claims, then until it has asked for its check's round; both times. */
  const claimAndAsk = () => {
    const claimStep = () => fx.findIndex((e) => e.publish.some((r) => r.kind === 'claim'))
    for (let i = 0; i < 12 && claimStep() < 0; i++) run()
    const asked = () => fx.findIndex((e, i) => i > claimStep() && e.sync)
    for (let i = 0; i < 12 && asked() < 0; i++) run()
    return { claimedAt: times[claimStep()]!, askedAt: times[asked()]! }
  }
  return { peer, run, fx, published, decideCalls, claimAndAsk }
}

describe('a decider publishes its accept once its claim is checked with the neighbours', () => {
  it('publishes nothing before the check ends, then the accept alone: no LLM call to classify', () => {
    const { peer, run, published, decideCalls, claimAndAsk } = decider()
    const { claimedAt, askedAt } = claimAndAsk()
    expect(askedAt - claimedAt).toBeGreaterThanOrEqual(DECIDE_CHECK_DELAY_MS)
    // a round asked before the claim's check began does not count
    expect(published().some((r) => r.kind === 'accept')).toBe(false)
    run([{ type: 'synced' }])
    const accept = published().find((r): r is AcceptRecord => r.kind === 'accept')
    expect(accept).toBeDefined()
    expect(decideCalls()).toEqual([])
    // every subgoal of the accepted split is classified by its voters at once (plan/classify.ts)
    const goal = derived(peer).goals.get(undecided.goal)!
    expect(goal.accepted?.id).toBe(accept!.proposal)
    expect(goal.slots).toHaveLength(SPLIT)
    expect(goal.slots.every((slot) => slot.classification !== null && slot.id !== null)).toBe(true)
  })

  it('publishes nothing when the check brings a better claim', () => {
    const { peer, run, published, claimAndAsk } = decider()
    for (let i = 0; i < 12 && !published().some((r) => r.kind === 'claim'); i++) run()
    const mine = published().find((r) => r.kind === 'claim') as ClaimRecord
    // a rival's claim of the same epoch that outranks ours, which the check brings
    let rival = fakePeerId(rng)
    while (rendezvousOrder(undecided.decide, [rival, mine.from])[0] !== rival)
      rival = fakePeerId(rng)
    const theirs = stamp<ClaimRecord>({ ...mine, from: rival } as never)
    claimAndAsk()
    run([{ type: 'record', record: theirs }, { type: 'synced' }])
    for (let i = 0; i < 8; i++) run()
    expect(derived(peer).tasks.get(undecided.decide)!.holder?.from).toBe(rival)
    expect(published().some((r) => r.kind === 'accept')).toBe(false)
    expect([...peer.work.values()].filter((work) => work.kind === 'decide')).toEqual([])
  })

  it('claims once the goal has proposals, checks while the votes come, and decides at the quorum', () => {
    const { peer, run, published, decideCalls, claimAndAsk } = decider(unscored.plan)
    const decided = () => published().some((r) => r.kind === 'accept')
    claimAndAsk()
    const claim = published().find((r): r is ClaimRecord => r.kind === 'claim')
    expect(claim?.task).toBe(undecided.decide)
    // the held claim takes no slot: the decider goes on scoring
    const scoring = [...peer.work.values()].filter((work) => work.kind === 'score').length
    expect(freeSlots(peer)).toBe(peer.config.capacity - scoring)
    run([{ type: 'synced' }]) // the check passes before any vote is in
    for (let i = 0; i < 8; i++) run()
    expect(decided()).toBe(false)
    // the votes arrive: the accept goes out at once, and the split is classified with it
    run(unscored.votes.map((record) => ({ type: 'record' as const, record })))
    const accept = published().find((r): r is AcceptRecord => r.kind === 'accept')
    expect(accept?.basis).toBe('quorum')
    expect(decideCalls()).toEqual([])
    const goal = derived(peer).goals.get(undecided.goal)!
    expect(goal.slots.filter((slot) => slot.classification !== null)).toHaveLength(SPLIT)
  })
})
