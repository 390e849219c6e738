import { describe, expect, it } from 'vitest'
import type { RoleActivity, SwarmMember } from '../../runtime/types'
import { gapWords, goalStall } from './stall'

function member(role: SwarmMember['role'], healthy = true): SwarmMember {
  return {
    peerId: `p-${role}-${Math.random()}`,
    role,
    model: 'm',
    offline: false,
    capabilities: [],
    healthy,
    load: 0,
    capacity: 1,
    holding: [],
    lastSeenMs: 0,
  }
}

function tab(role: RoleActivity['role'], swarm: SwarmMember[], over: Partial<RoleActivity> = {}) {
  return {
    role,
    capabilities: [],
    model: 'openai-compatible/m',
    offline: false,
    healthy: true,
    lastError: null,
    lastErrorKind: null,
    work: [],
    recent: [],
    swarm,
    llm: {} as RoleActivity['llm'],
    ...over,
  } as RoleActivity
}

describe('why a goal does not move', () => {
  it('no decomposer: says so and offers to open one', () => {
    const stall = goalStall('awaiting-proposals', tab('observer', [member('scorer')]))
    expect(stall).toMatchObject({ open: 'decomposer', tone: 'bad' })
    expect(stall!.text).toMatch(/^No decomposer in the room/)
  })

  it('decomposers present but failing: says that, not "is one open?"', () => {
    const swarm = [member('decomposer', false), member('scorer')]
    const self = tab('decomposer', swarm, { healthy: false, lastError: 'bad API key' })
    const stall = goalStall('awaiting-proposals', self)
    expect(stall!.text).toBe(
      '2 decomposers present, but their model is failing or paused (this tab: bad API key): no split comes until one works.',
    )
    expect(stall!.open).toBeNull()
  })

  it('a working decomposer: just waiting', () => {
    const stall = goalStall('awaiting-proposals', tab('executor', [member('decomposer')]))
    expect(stall).toEqual({
      text: 'Waiting for 1 decomposer to propose splits.',
      open: null,
      tone: 'idle',
    })
  })

  it('scoring: counts scorers, and working ones', () => {
    expect(goalStall('scoring', tab('observer', [member('scorer')]))).toMatchObject({
      open: 'scorer',
      text: 'A split needs 2 scorers; the room has 1. Open one:',
    })
    const failing = goalStall(
      'scoring',
      tab('observer', [member('scorer'), member('scorer', false)]),
    )
    expect(failing!.text).toMatch(/^2 scorers present, but 1 of them is failing/)
    expect(goalStall('scoring', tab('scorer', [member('scorer')]))!.tone).toBe('idle')
  })

  it('other statuses: nothing to explain', () => {
    expect(goalStall('accepted', tab('observer', []))).toBeNull()
  })
})

describe('a capability gap in words', () => {
  it('in an executor tab, the fix is here; elsewhere, in an executor tab', () => {
    expect(gapWords('can_query_api', true)).toBe(
      'Nobody in the room offers to look up live facts (can_query_api). This tab is an executor: turn it on here.',
    )
    expect(gapWords('can_run_code', false)).toMatch(/Turn it on in an executor tab/)
  })
})
