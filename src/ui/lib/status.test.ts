import { describe, expect, it } from 'vitest'
import type { GoalView, SlotView } from '../../plan/tree'
import { goalLook, slotLook } from './status'

const goal = (over: Partial<GoalView>) =>
  ({
    status: 'done',
    phase: 'complete',
    outcome: 'complete',
    failedParts: 0,
    proposals: [],
    rollup: { holder: null, why: null },
    ...over,
  }) as GoalView

describe('a goal’s status says how it ended', () => {
  it('done only when every part is done; otherwise how many parts failed', () => {
    expect(goalLook(goal({}))).toEqual({ icon: 'check', label: 'Done', tone: 'good' })
    expect(goalLook(goal({ phase: 'partial', failedParts: 2 }))).toEqual({
      icon: 'warning',
      label: 'Finished with 2 failed parts',
      tone: 'bad',
    })
    expect(goalLook(goal({ phase: 'partial', failedParts: 1 })).label).toBe(
      'Finished with 1 failed part',
    )
  })
})

describe('one goal, one status (issue 56)', () => {
  it('a goal whose parts all settled waits for its roll-up, not "in progress"', () => {
    const waiting = goalLook(goal({ status: 'accepted', phase: 'awaiting-rollup', failedParts: 4 }))
    expect(waiting.label).toBe('Every part settled (4 failed), waiting for the roll-up')
    expect(waiting.label).not.toMatch(/in progress/)
  })

  it('a failed goal says why', () => {
    const failed = goalLook(
      goal({
        status: 'failed',
        phase: 'failed',
        rollup: {
          holder: null,
          why: { kind: 'attempts', detail: "the executor's model was not found (404)" },
        } as GoalView['rollup'],
      }),
    )
    expect(failed).toEqual({
      icon: 'cross',
      label: "Failed: the executor's model was not found (404)",
      tone: 'bad',
    })
  })
})

const slot = (over: Partial<SlotView>) =>
  ({
    status: 'open',
    goal: null,
    leaf: null,
    capabilityGap: null,
    noWorker: null,
    why: null,
    ...over,
  }) as SlotView

describe('a failed leaf says the real reason (issue 56)', () => {
  it('its executors’ error, a real gap, no working executor, or a failed dependency', () => {
    const failed = (why: SlotView['why']) => slotLook(slot({ status: 'failed', why })).label
    expect(failed({ kind: 'attempts', detail: "the executor's model was not found (404)" })).toBe(
      "Failed: the executor's model was not found (404)",
    )
    expect(failed({ kind: 'gap', detail: 'nobody offers it' })).toBe('Capability gap')
    expect(failed({ kind: 'unworked', detail: 'x' })).toBe('Failed: no working executor took it')
    expect(failed({ kind: 'blocked', detail: 'depends on a failed leaf: 1. A' })).toBe(
      'Blocked: depends on a failed step',
    )
  })

  it('a waiting leaf whose executors cannot work says so at once', () => {
    expect(slotLook(slot({ noWorker: { capability: 'can_write_text' } })).label).toBe(
      'Waiting: no working executor offers writing',
    )
  })
})

describe('a leaf that needs what nobody offers', () => {
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
