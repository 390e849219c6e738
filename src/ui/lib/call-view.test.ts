import { describe, expect, it } from 'vitest'
import type { GoalView, PlanTree } from '../../plan/tree'
import type { CallEntry } from '../../runtime/call-log'
import { callSubject, callTotals, callsOfGoal, nodeNames } from './call-view'

const task = (id: string) => ({ id }) as GoalView['rollup']

const child = {
  id: 'g2',
  text: 'Book hotels',
  rollup: task('r2'),
  proposals: [],
  slots: [],
} as unknown as GoalView

const root = {
  id: 'g1',
  text: 'Plan a trip',
  rollup: task('r1'),
  proposals: [{ id: 'p1' }, { id: 'p2' }],
  slots: [
    {
      text: 'Pick dates',
      leaf: task('t1'),
      superseded: [{ task: task('t0'), note: '' }],
      goal: null,
    },
    { text: 'Hotels', leaf: null, superseded: [], goal: child },
  ],
} as unknown as GoalView

const tree = { goals: [root] } as unknown as PlanTree

function call(over: Partial<CallEntry>): CallEntry {
  return {
    id: 'c',
    kind: 'execute',
    goal: 'g1',
    node: null,
    inputTokens: 100,
    outputTokens: 20,
    costUsd: 0.001,
    ...over,
  } as CallEntry
}

describe('the inspector names what each call was for', () => {
  it('by the text of its goal, split, leaf or roll-up, at any depth', () => {
    const names = nodeNames(tree)
    expect(names.get('g1')).toBe('goal: Plan a trip')
    expect(names.get('p2')).toBe('split 2 of: Plan a trip')
    expect(names.get('t1')).toBe('leaf: Pick dates')
    expect(names.get('t0')).toBe('leaf (sent back): Pick dates')
    expect(names.get('r2')).toBe('roll-up of: Book hotels')
    expect(callSubject(call({ node: 't1' }), names)).toBe('leaf: Pick dates')
    // a node the tree does not show (a decide task): its root goal
    expect(callSubject(call({ kind: 'decompose', node: 'd1' }), names)).toBe(
      'decompose for goal: Plan a trip',
    )
    expect(callSubject(call({ goal: null, node: 'x' }), names)).toBeNull()
  })

  it('adds up one goal’s calls', () => {
    const calls = [
      call({ goal: 'g1' }),
      call({ goal: 'g1', costUsd: null }),
      call({ goal: 'other', inputTokens: 999 }),
    ]
    expect(callTotals(callsOfGoal(calls, 'g1'))).toEqual({
      calls: 2,
      inputTokens: 200,
      outputTokens: 40,
      costUsd: 0.001,
      unpriced: 1,
    })
    expect(callsOfGoal(calls, 'all')).toHaveLength(3)
  })
})
