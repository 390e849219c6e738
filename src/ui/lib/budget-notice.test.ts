import { describe, expect, it } from 'vitest'
import { DEFAULT_BUDGET } from '../../runtime/budget'
import { capText, hitNotice } from './budget-notice'

describe('budget notice', () => {
  it('names the hourly cap reached and offers a raise that resumes', () => {
    const limits = { ...DEFAULT_BUDGET, tokensPerHour: 1_000 }
    const notice = hitNotice(
      { cap: 'tokensPerHour', goal: null, used: 1_200, limit: 1_000 },
      limits,
      null,
    )
    expect(notice.headline).toBe('Paused: this tab reached its cap of 1,000 tokens per hour.')
    expect(notice.detail).toContain('1,200 tokens spent in the last hour')
    expect(notice.raised).toEqual({ ...limits, tokensPerHour: 2_000 })
    expect(notice.raiseLabel).toBe('Raise to 2,000 tokens per hour')
    expect(notice.detail).toMatch(/ages out\.$/)
    const later = hitNotice(
      { cap: 'tokensPerHour', goal: null, used: 1_200, limit: 1_000 },
      limits,
      null,
      new Date(2026, 0, 1, 14, 30).getTime(),
    )
    expect(later.detail).toMatch(/ages out \(by 02:30 PM|ages out \(by 14:30/)
  })

  it('names the goal whose cost cap was reached', () => {
    const notice = hitNotice(
      { cap: 'usdPerGoal', goal: 'g', used: 2.1, limit: 2 },
      DEFAULT_BUDGET,
      'Plan a trip',
    )
    expect(notice.headline).toBe(
      'Stopped working on “Plan a trip”: this tab reached its cap of $2.00 per goal (estimated cost).',
    )
    expect(notice.raised.usdPerGoal).toBe(4)
    expect(capText('usdPerHour', 5)).toBe('$5.00 per hour (estimated cost)')
  })
})
