import { describe, expect, it } from 'vitest'
import { QUORUM_VOTES } from '../protocol/rules'
import { newGoal, stamp, type ProposalRecord } from '../protocol/records'
import { createRng } from '../sim/rng'
import { fakePeerId } from '../sim/swarm'
import { testBeat } from './beat.test-support'
import { createPeer, step, type PeerInput } from './index'
import { scoreOrder } from './scorer'

describe('scoreOrder: which proposal a busy scorer scores first', () => {
  it('takes proposals whose quorum it is ranked for in order of arrival, whatever its rank', () => {
    const second = { rank: 1, seenAt: 100, turn: 0 } // ranked second, arrived first
    const first = { rank: 0, seenAt: 200, turn: 0 } // ranked first, arrived later
    expect([first, second].sort(scoreOrder)).toEqual([second, first])
  })

  it('takes a proposal it would give a third vote to only after those', () => {
    const third = { rank: QUORUM_VOTES, seenAt: 0, turn: 0 }
    const quorum = { rank: QUORUM_VOTES - 1, seenAt: 500, turn: 2 }
    expect([third, quorum].sort(scoreOrder)).toEqual([quorum, third])
  })

  it("takes every goal's first proposal (in id order) before any goal's second", () => {
    const secondOfA = { rank: 0, seenAt: 100, turn: 1 }
    const firstOfB = { rank: 1, seenAt: 300, turn: 0 }
    expect([secondOfA, firstOfB].sort(scoreOrder)).toEqual([firstOfB, secondOfA])
  })

  it('breaks a tie in arrival by rank', () => {
    const a = { rank: 1, seenAt: 100, turn: 0 }
    const b = { rank: 0, seenAt: 100, turn: 0 }
    expect([a, b].sort(scoreOrder)).toEqual([b, a])
  })
})

describe('two scorers with one slot each, a goal with two proposals', () => {
  const rng = createRng('scorer-order-test')
  const [alice, bob, decomposer] = [fakePeerId(rng), fakePeerId(rng), fakePeerId(rng)]
  const goal = newGoal('r', decomposer, 'g', 0, 2)
  const proposal = (rationale: string) =>
    stamp<ProposalRecord>({
      kind: 'proposal',
      room: 'r',
      from: decomposer,
      goal: goal.id,
      subgoals: [
        { text: `${rationale} a`, dependsOn: [] },
        { text: `${rationale} b`, dependsOn: [] },
      ],
      rationale,
      usage: { provider: 'sim', model: 'm', inputTokens: 1, outputTokens: 1, offline: true },
    })
  const [x, y] = [proposal('x'), proposal('y')]
  const beat = (from: string) => testBeat({ room: 'r', from, role: 'scorer', capacity: 1 })

  it('put their votes on the same one, whichever reached each first', () => {
    // in one step, as a burst of gossip lands in one step: both are candidates at once
    const inBurst = (me: string, other: string, order: ProposalRecord[]) => {
      const peer = createPeer(
        {
          peerId: me,
          room: 'r',
          role: 'scorer',
          capabilities: [],
          capacity: 1,
          model: 'm',
          offline: true,
        },
        0,
      )
      step(peer, { type: 'tick' }, 0)
      step(peer, { type: 'tick' }, 8_000)
      const fx = step(
        peer,
        [
          { type: 'presence', presence: beat(other) },
          { type: 'record', record: goal },
          ...order.map((record): PeerInput => ({ type: 'record', record })),
        ],
        8_000,
      )
      const task = fx.startLlm.find((request) => request.task.kind === 'score')?.task
      return task?.kind === 'score' ? task.rationale : undefined
    }
    const byAlice = inBurst(alice, bob, [x, y])
    const byBob = inBurst(bob, alice, [y, x])
    expect(byAlice).toBeDefined()
    expect(byBob).toBe(byAlice)
    expect(byAlice).toBe([x, y].sort((a, b) => (a.id < b.id ? -1 : 1))[0]!.rationale)
  })
})
