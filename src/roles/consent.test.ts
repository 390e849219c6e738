import { describe, expect, it } from 'vitest'
import { stamp, type GoalRecord, type Presence, type ProposalRecord } from '../protocol/records'
import { WARMUP_MS } from '../protocol/rules'
import { derivePlan } from '../plan/derive'
import { PlanState } from '../plan/state'
import { createRng } from '../sim/rng'
import { openLeaf } from '../sim/finished.test-support'
import { fakePeerId } from '../sim/swarm'
import { acceptsAuthor, mayWorkOn, OPEN_CONSENT, type Consent } from './consent'
import { createPeer, step } from './index'
import type { PeerConfig } from './types'

const rng = createRng('consent-test')
const [alice, bob, carol] = [fakePeerId(rng), fakePeerId(rng), fakePeerId(rng)]
const usage = { provider: 'sim', model: 'sim-1', inputTokens: 1, outputTokens: 1, offline: true }

const goalBy = (from: string, text = 'Plan a garden') =>
  stamp<GoalRecord>({ kind: 'goal', room: 'r', from, text, createdAt: 0, maxDepth: 2 })

const config = (role: PeerConfig['role'], consent?: Consent): PeerConfig => ({
  peerId: bob,
  room: 'r',
  role,
  capabilities: [],
  capacity: 4,
  model: 'sim-1',
  offline: true,
  ...(consent ? { consent } : {}),
})

const kinds = (fx: ReturnType<typeof step>) => fx.startLlm.map((request) => request.task.kind)

describe('goal filter', () => {
  it('anyone: every author passes', () => {
    expect(acceptsAuthor(null, alice)).toBe(true)
  })

  it('only listed authors (this browser’s tabs) pass', () => {
    expect(acceptsAuthor([bob, carol], bob)).toBe(true)
    expect(acceptsAuthor([bob, carol], alice)).toBe(false)
    expect(acceptsAuthor([], alice)).toBe(false)
  })

  it('judges a subgoal by its root goal’s author and budget', () => {
    const plan = new PlanState()
    const root = goalBy(alice)
    plan.add(root)
    const goal = derivePlan(plan).goals.get(root.id)!
    expect(mayWorkOn(undefined, goal)).toBe(true)
    expect(mayWorkOn(OPEN_CONSENT, goal)).toBe(true)
    expect(mayWorkOn({ ...OPEN_CONSENT, authors: [bob] }, goal)).toBe(false)
    expect(mayWorkOn({ ...OPEN_CONSENT, authors: [alice] }, goal)).toBe(true)
    expect(mayWorkOn({ ...OPEN_CONSENT, paused: true }, goal)).toBe(false)
    expect(mayWorkOn({ ...OPEN_CONSENT, skipGoals: [root.id] }, goal)).toBe(false)
    expect(mayWorkOn(OPEN_CONSENT, undefined)).toBe(false)
  })
})

describe('a peer’s consent', () => {
  it('a decomposer set to only its browser’s authors never splits another author’s goal', () => {
    const peer = createPeer(config('decomposer', { ...OPEN_CONSENT, authors: [bob, carol] }), 0)
    const foreign = goalBy(alice, 'theirs')
    const own = goalBy(carol, 'ours')
    step(peer, { type: 'record', record: foreign }, 0)
    const fx = step(peer, { type: 'record', record: own }, WARMUP_MS)
    expect(fx.startLlm.map((r) => r.id)).toEqual([`decompose:${own.id}`])
    for (let t = WARMUP_MS; t < WARMUP_MS + 60_000; t += 1_000)
      expect(step(peer, { type: 'tick' }, t).startLlm.map((r) => r.id)).not.toContain(
        `decompose:${foreign.id}`,
      )
  })

  it('a paused peer starts nothing new, says so in its beat, and resumes when unpaused', () => {
    const peer = createPeer(config('decomposer', { ...OPEN_CONSENT, paused: true }), 0)
    const first = step(peer, { type: 'record', record: goalBy(alice) }, 0)
    expect(first.publish.find((r): r is Presence => r.kind === 'presence')?.healthy).toBe(false)
    expect(kinds(step(peer, { type: 'tick' }, WARMUP_MS))).toEqual([])
    const resumed = step(
      peer,
      { type: 'command', command: { type: 'set-consent', consent: OPEN_CONSENT } },
      WARMUP_MS + 1_000,
    )
    expect(kinds(resumed)).toEqual(['decompose'])
    expect(resumed.publish.find((r): r is Presence => r.kind === 'presence')?.healthy).toBe(true)
  })

  it('a goal over its budget gets no new work; other goals do', () => {
    const over = goalBy(alice, 'over')
    const other = goalBy(alice, 'other')
    const peer = createPeer(config('decomposer', { ...OPEN_CONSENT, skipGoals: [over.id] }), 0)
    step(
      peer,
      [
        { type: 'record', record: over },
        { type: 'record', record: other },
      ],
      0,
    )
    const fx = step(peer, { type: 'tick' }, WARMUP_MS)
    expect(fx.startLlm.map((r) => r.id)).toEqual([`decompose:${other.id}`])
  })

  it('a scorer set to only its browser’s authors scores no split of another author’s goal', () => {
    const goal = goalBy(alice)
    const proposal = stamp<ProposalRecord>({
      kind: 'proposal',
      room: 'r',
      from: carol,
      goal: goal.id,
      subgoals: [
        { text: 'a', dependsOn: [] },
        { text: 'b', dependsOn: [] },
      ],
      rationale: 'r',
      usage,
    })
    const refusing = createPeer(config('scorer', { ...OPEN_CONSENT, authors: [bob] }), 0)
    const open = createPeer(config('scorer'), 0)
    for (const peer of [refusing, open]) {
      step(
        peer,
        [
          { type: 'record', record: goal },
          { type: 'record', record: proposal },
        ],
        0,
      )
    }
    expect(kinds(step(refusing, { type: 'tick' }, WARMUP_MS))).toEqual([])
    expect(kinds(step(open, { type: 'tick' }, WARMUP_MS))).toEqual(['score'])
  })
})

describe('an executor’s consent', () => {
  // every record of a finished simulated plan, less one leaf's claims and results: open again
  function openLeafOfAuthor() {
    const { plan, task, leaf } = openLeaf(5)
    return { plan, task, author: leaf.goal.createdBy }
  }

  it('claims no leaf of another author’s goal; claims it when the author is accepted', () => {
    const { plan, task, author } = openLeafOfAuthor()
    const claims = (consent: Consent) => {
      const copy = new PlanState()
      copy.merge(plan)
      const peer = createPeer(
        {
          ...config('executor', consent),
          room: 'sim',
          capabilities: ['can_write_text', 'can_run_code', 'can_query_api'],
        },
        0,
        copy,
      )
      let claimed = false
      for (let t = 0; t <= WARMUP_MS + 30_000; t += 500) {
        const fx = step(peer, { type: 'tick' }, t)
        claimed ||= fx.publish.some((r) => r.kind === 'claim' && r.task === task)
      }
      return claimed
    }
    expect(claims({ ...OPEN_CONSENT, authors: [bob] })).toBe(false)
    expect(claims({ ...OPEN_CONSENT, paused: true })).toBe(false)
    expect(claims({ ...OPEN_CONSENT, authors: [bob, author] })).toBe(true)
  })
})
