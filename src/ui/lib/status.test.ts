import { describe, expect, it } from 'vitest'
import type { GoalView, SlotView } from '../../plan/tree'
import { goalLook, slotLook } from './status'

const goal = (over: Partial<GoalView>) =>
  ({ status: 'done', outcome: 'complete', failedParts: 0, proposals: [], ...over }) as GoalView

describe('a goal’s status says how it ended', () => {
  it('done only when every part is done; otherwise how many parts failed', () => {
    expect(goalLook(goal({}))).toEqual({ icon: 'check', label: 'Done', tone: 'good' })
    expect(goalLook(goal({ outcome: 'partial', failedParts: 2 }))).toEqual({
      icon: 'warning',
      label: 'Finished with 2 failed parts',
      tone: 'bad',
    })
    expect(goalLook(goal({ outcome: 'partial', failedParts: 1 })).label).toBe(
      'Finished with 1 failed part',
    )
  })
})

describe('a leaf that needs what nobody offers', () => {
  const slot = (over: Partial<SlotView>) =>
    ({ status: 'open', goal: null, leaf: null, capabilityGap: null, ...over }) as SlotView

  it('says so at once instead of "open for executors"', () => {
    expect(slotLook(slot({})).label).toBe('Atomic, open for executors')
    expect(slotLook(slot({ capabilityGap: { capability: 'can_query_api' } }))).toEqual({
      icon: 'warning',
      label: 'Waiting: nobody in the room offers API lookup',
      tone: 'bad',
    })
    expect(
      slotLook(slot({ status: 'waiting', capabilityGap: { capability: 'can_run_code' } })).label,
    ).toBe('Waiting: nobody in the room offers code')
  })
})
