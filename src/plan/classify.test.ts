/**
 * The accepted split is classified by its voters (protocol version 7,
 * issue 46): the rule of plan/classify.ts alone, then as every peer derives
 * it from the record set (derive.ts).
 */
import { describe, expect, it } from 'vitest'
import { nodeId, taskId } from '../protocol/ids'
import { stamp, type AcceptRecord, type Judgement, type ScoreRecord } from '../protocol/records'
import { classificationReason, classifySubgoal, judgingOrder, splitVoters } from './classify'
import { derivePlan } from './derive'
import { PlanState } from './state'
import { acceptedSplit, allAtomic, claimOf, ROOM, scoreOf, SCORERS } from './split.test-support'

const atomic = (capability: Judgement['capability'] = 'can_write_text'): Judgement => ({
  atomic: true,
  capability,
})
const composite = (capability: Judgement['capability'] = 'can_write_text'): Judgement => ({
  atomic: false,
  capability,
})

/** A voter (a score record, as far as the rule reads one) judging subgoal 0 as `judgement`. */
const voter = (id: string, score: number, judgement: Judgement) =>
  ({ id, score, judgements: [judgement] }) as ScoreRecord

describe('classifySubgoal: the majority of the voters', () => {
  it('follows the majority, whatever the order of the voters', () => {
    const votes = [
      voter('a', 0.9, composite()),
      voter('b', 0.8, atomic()),
      voter('c', 0.7, atomic()),
    ]
    expect(classifySubgoal(votes, 0, false)).toMatchObject({
      atomic: true,
      capped: false,
      atomicVotes: 2,
      voters: 3,
    })
    expect(classifySubgoal([...votes].reverse(), 0, false).atomic).toBe(true)
    const split = [
      voter('a', 0.9, atomic()),
      voter('b', 0.8, composite()),
      voter('c', 0.7, composite()),
    ]
    expect(classifySubgoal(split, 0, false).atomic).toBe(false)
  })

  it('breaks a tie as the first voter in judging order judged: highest score, then lowest id', () => {
    const a = voter('a', 0.7, atomic())
    const b = voter('b', 0.9, composite())
    const tie = [a, b].sort(judgingOrder)
    expect(tie.map((v) => v.id)).toEqual(['b', 'a'])
    expect(classifySubgoal(tie, 0, false).atomic).toBe(false)
    const even = [voter('d', 0.8, atomic()), voter('c', 0.8, composite())].sort(judgingOrder)
    expect(even.map((v) => v.id)).toEqual(['c', 'd'])
    expect(classifySubgoal(even, 0, false).atomic).toBe(false)
  })

  it('takes the capability most named on the winning side; a tie by judging order', () => {
    const votes = [
      voter('a', 0.9, atomic('can_write_text')),
      voter('b', 0.8, atomic('can_query_api')),
      voter('c', 0.7, atomic('can_query_api')),
      voter('d', 0.6, composite('can_run_code')),
      voter('e', 0.5, composite('can_run_code')),
    ]
    expect(classifySubgoal(votes, 0, false)).toMatchObject({
      atomic: true,
      capability: 'can_query_api',
    })
    // the losing side's capabilities count for nothing, even named more often
    const tied = [
      voter('a', 0.9, atomic('can_run_code')),
      voter('b', 0.8, atomic('can_write_text')),
      voter('d', 0.6, composite('can_write_text')),
    ]
    expect(classifySubgoal(tied, 0, false)).toMatchObject({
      atomic: true,
      capability: 'can_run_code',
    })
  })

  it('takes the tool group most named on the winning side, "none" counting as a choice (version 8)', () => {
    const withTool = (tool?: string): Judgement => ({ ...atomic(), ...(tool ? { tool } : {}) })
    const two = [voter('a', 0.9, withTool('files')), voter('b', 0.8, withTool('files'))]
    expect(classifySubgoal(two, 0, false).tool).toBe('files')
    const most = [
      voter('a', 0.9, withTool('files')),
      voter('b', 0.8, withTool()),
      voter('c', 0.7, withTool()),
    ]
    expect(classifySubgoal(most, 0, false).tool).toBeNull()
    // a tie: the first voter in judging order
    const tie = [voter('b', 0.8, withTool()), voter('a', 0.9, withTool('memory'))]
    expect(classifySubgoal(tie.sort(judgingOrder), 0, false).tool).toBe('memory')
    expect(classificationReason(classifySubgoal(two, 0, false))).toBe(
      '2 of 2 voters judged it one deliverable (can_write_text, tool group files)',
    )
  })

  it('makes every subgoal atomic at the depth cap, capped when the voters said composite', () => {
    const votes = [voter('a', 0.9, composite('can_run_code')), voter('b', 0.8, composite())]
    const capped = classifySubgoal(votes, 0, true)
    expect(capped).toMatchObject({ atomic: true, capped: true, capability: 'can_run_code' })
    expect(classificationReason(capped)).toBe(
      'none of 2 voters judged it one deliverable; at the depth cap it is one anyway',
    )
    expect(classifySubgoal([voter('a', 0.9, atomic())], 0, true)).toMatchObject({
      atomic: true,
      capped: false,
    })
  })
})

describe('every peer classifies the accepted split from its cited votes (derive.ts)', () => {
  it('grows a leaf for an atomic subgoal and a child goal for a composite one', () => {
    const judged = [atomic('can_run_code'), composite()]
    const split = acceptedSplit(2, 3, [judged, judged])
    const goal = derivePlan(split.plan).goals.get(split.goal.id)!
    const [leaf, child] = goal.slots
    const text = (i: number) => split.proposal.subgoals[i]!.text
    expect(leaf!.id).toBe(nodeId(split.goal.id, split.proposal.id, 0, text(0), true))
    expect(leaf!.execute?.id).toBe(taskId('execute', leaf!.id!))
    expect(leaf!.capability).toBe('can_run_code')
    expect(child!.id).toBe(nodeId(split.goal.id, split.proposal.id, 1, text(1), false))
    expect(child!.child).toBe(child!.id)
    expect(derivePlan(split.plan).goals.get(child!.id!)?.depth).toBe(1)
  })

  it('counts only the votes the accept cites: a later vote changes nothing', () => {
    const split = acceptedSplit(2, 3, [
      [atomic(), composite()],
      [atomic(), composite()],
    ])
    const before = derivePlan(split.plan)
      .goals.get(split.goal.id)!
      .slots.map((s) => s.id)
    const late = scoreOf(SCORERS[2], split.goal.id, split.proposal.id, [composite(), atomic()])
    split.plan.add(late)
    const goal = derivePlan(split.plan).goals.get(split.goal.id)!
    expect(goal.votes.get(split.proposal.id)).toHaveLength(3)
    expect(goal.slots.map((s) => s.id)).toEqual(before)
    expect(splitVoters(goal.accept!, goal.votes.get(split.proposal.id)!)).toHaveLength(2)
  })

  it('derives the same classification in any order of delivery', () => {
    const split = acceptedSplit(3, 3, [
      [atomic(), composite('can_query_api'), atomic('can_run_code')],
      [composite(), composite(), atomic('can_query_api')],
    ])
    const records = [...split.plan.records()]
    const expected = derivePlan(split.plan)
      .goals.get(split.goal.id)!
      .slots.map((s) => [s.id, s.atomic, s.capability])
    for (let shift = 1; shift < records.length; shift++) {
      const state = new PlanState()
      for (const record of [...records.slice(shift), ...records.slice(0, shift)].reverse())
        state.add(record)
      const slots = derivePlan(state).goals.get(split.goal.id)!.slots
      expect(slots.map((s) => [s.id, s.atomic, s.capability])).toEqual(expected)
    }
  })

  it('counts no vote without one judgement per subgoal: an accept citing it does not hold', () => {
    const split = acceptedSplit(3, 1, [allAtomic(3), allAtomic(2)])
    const goal = derivePlan(split.plan).goals.get(split.goal.id)!
    expect(goal.votes.get(split.proposal.id)).toHaveLength(1)
    expect(goal.accept).toBeNull()
    expect(goal.slots).toEqual([])
    // a vote that does judge every subgoal completes the quorum
    split.plan.add(scoreOf(SCORERS[2], split.goal.id, split.proposal.id, allAtomic(3)))
    expect(derivePlan(split.plan).goals.get(split.goal.id)!.accept).toBeNull() // not cited
  })

  it('leaves nothing unclassified: every subgoal of an accepted split has a node at once', () => {
    const split = acceptedSplit(4, 3, [
      [atomic(), composite(), atomic(), composite()],
      [composite(), atomic(), atomic(), composite()],
    ])
    const goal = derivePlan(split.plan).goals.get(split.goal.id)!
    expect(goal.slots).toHaveLength(4)
    expect(goal.slots.every((slot) => slot.id !== null && slot.classification !== null)).toBe(true)
    // ties (subgoals 0 and 1) go as the first voter in judging order judged
    const first = [...split.scores].sort(judgingOrder)[0]!
    expect(goal.slots[0]!.atomic).toBe(first.judgements[0]!.atomic)
    expect(goal.slots[1]!.atomic).toBe(first.judgements[1]!.atomic)
    expect(goal.slots[2]!.atomic).toBe(true)
    expect(goal.slots[3]!.atomic).toBe(false)
  })
})

describe('the votes that classify: those of the latest epoch accepting the split', () => {
  it('a takeover whose accept cites other votes keeps classifying when the first accept surfaces', () => {
    // the first decider's accept (epoch 0) never left it; a takeover (epoch 1) accepted
    // the same split on other votes; then the first surfaces: the split stays (§5.1.3:
    // the earliest accept names it) and so do its children (the latest classifies)
    const judged = [
      [atomic(), composite()],
      [atomic(), composite()],
    ]
    const split = acceptedSplit(2, 3, judged)
    const third = scoreOf(
      SCORERS[2],
      split.goal.id,
      split.proposal.id,
      [composite(), atomic()],
      0.95,
    )
    const takeover = [
      claimOf(SCORERS[1], 'decide', split.goal.id, 1),
      third,
      stamp<AcceptRecord>({
        kind: 'accept',
        room: ROOM,
        from: SCORERS[1],
        goal: split.goal.id,
        proposal: split.proposal.id,
        basis: 'quorum',
        votes: [split.scores[1]!.id, third.id],
        epoch: 1,
      }),
    ]
    const firstAccept = [...split.plan.records()].find((r) => r.kind === 'accept')!
    const seen = new PlanState()
    for (const r of split.plan.records()) if (r.id !== firstAccept.id) seen.add(r)
    for (const r of takeover) seen.add(r)
    const before = derivePlan(seen)
      .goals.get(split.goal.id)!
      .slots.map((s) => s.id)
    seen.add(firstAccept)
    const goal = derivePlan(seen).goals.get(split.goal.id)!
    expect(goal.accept?.id).toBe(firstAccept.id)
    expect(goal.slots.map((s) => s.id)).toEqual(before)
    // the tie (0.95 composite, 0.9 atomic) went as the takeover's better voter judged
    expect(goal.slots.map((s) => s.atomic)).toEqual([false, true])
  })
})
