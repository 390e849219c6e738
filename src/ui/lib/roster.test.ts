import { describe, expect, it } from 'vitest'
import type { RoleActivity, SwarmMember } from '../../runtime/types'
import { rosterOf } from './roster'

function member(
  role: SwarmMember['role'],
  capabilities: SwarmMember['capabilities'] = [],
): SwarmMember {
  return {
    peerId: `12D3KooW${role}${capabilities.join('')}`,
    role,
    model: 'offline-v1',
    offline: true,
    capabilities,
    healthy: true,
    load: 0,
    capacity: 4,
    holding: [],
    lastSeenMs: 100,
  }
}

function activity(
  role: RoleActivity['role'],
  swarm: SwarmMember[],
  capabilities: RoleActivity['capabilities'] = [],
): RoleActivity {
  return {
    role,
    capabilities,
    model: 'offline-v1',
    offline: true,
    healthy: true,
    lastError: null,
    lastErrorKind: null,
    modelStatus: { state: 'unknown', by: null, error: null, kind: null },
    work: [],
    recent: [],
    swarm,
    llm: {
      calls: { decompose: 0, score: 0, execute: 0, rollup: 0 },
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      unpricedCalls: 0,
      failedCalls: 0,
    },
  }
}

const ALL = ['can_write_text', 'can_run_code', 'can_query_api'] as const

describe('roster', () => {
  it('counts this tab with the others', () => {
    const roster = rosterOf(
      activity('scorer', [member('decomposer'), member('scorer'), member('executor', [...ALL])]),
    )
    expect(roster).toMatchObject({ decomposers: 1, scorers: 2, executors: 1, problems: [] })
  })

  it('does not count an observer (it sends no presence and does no work)', () => {
    const roster = rosterOf(activity('observer', [member('decomposer')]))
    expect(roster.decomposers).toBe(1)
    expect(roster.scorers).toBe(0)
  })

  it('says what stalls a plan', () => {
    const roster = rosterOf(activity('decomposer', [member('scorer')]))
    expect(roster.problems).toEqual([
      'Only 1 scorer: a split needs 2 scorers to be accepted.',
      'No executor: tasks will wait.',
    ])
  })

  it('says which members cannot work now (issue 56)', () => {
    const broken = { ...member('executor', [...ALL]), healthy: false }
    const roster = rosterOf(activity('decomposer', [member('scorer'), member('scorer'), broken]))
    expect(roster.executors).toBe(1)
    expect(roster.problems).toEqual([
      '1 executor is not working now (its model fails, or its spending is paused): it takes no work until it does.',
    ])
  })

  it('names capabilities nobody offers', () => {
    const roster = rosterOf(
      activity(
        'executor',
        [member('decomposer'), member('scorer'), member('scorer')],
        ['can_write_text'],
      ),
    )
    expect(roster.missing).toEqual(['can_run_code', 'can_query_api'])
    expect(roster.problems).toEqual([
      'No executor can run code or look up live facts: such tasks wait until one does. An executor tab turns them on under “What this executor does”.',
    ])
  })
})

describe('peers out of reach (issue 58)', () => {
  it('a tab linked to nobody does not call roles absent: it says who it cannot hear', () => {
    const roster = rosterOf(activity('executor', []), { outOfReach: 4, cutOff: true, known: 4 })
    expect(roster.problems).toEqual([
      '4 peers are in this room and not linked to this tab: who does what is unknown here until they are.',
    ])
    expect(roster.outOfReach).toBe(4)
  })

  it('a peer out of reach is counted as such, beside the roles heard', () => {
    const swarm = [member('decomposer'), member('scorer'), member('scorer')]
    const roster = rosterOf(activity('observer', swarm), { outOfReach: 1, cutOff: false, known: 4 })
    expect(roster.executors).toBe(0)
    expect(roster.outOfReach).toBe(1)
    expect(roster.problems[0]).toBe(
      'One peer in this room is out of reach: its role is unknown here, and no work goes to or from it.',
    )
  })
})
