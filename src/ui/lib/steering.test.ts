import { describe, expect, it } from 'vitest'
import { steersGoal } from './steering'

const TAB1 = '12D3KooWTab1'
const TAB2 = '12D3KooWTab2'

describe('steersGoal: who gets the steering controls', () => {
  it('the tab that wrote the goal, and any tab of the same member; nobody else', () => {
    const goal = { createdBy: TAB1, createdByMember: 'alice' }
    expect(steersGoal(goal, TAB1, 'alice')).toBe(true)
    expect(steersGoal(goal, TAB2, 'alice')).toBe(true)
    expect(steersGoal(goal, TAB2, 'bob')).toBe(false)
    expect(steersGoal(goal, TAB2, null)).toBe(false)
  })

  it('without a membership only the very PeerId', () => {
    const goal = { createdBy: TAB1, createdByMember: null }
    expect(steersGoal(goal, TAB1, null)).toBe(true)
    expect(steersGoal(goal, TAB2, null)).toBe(false)
    // a member id never matches a goal whose author's member is unknown
    expect(steersGoal(goal, TAB2, 'alice')).toBe(false)
  })
})
