import { describe, expect, it } from 'vitest'
import {
  budgetStep,
  createBudget,
  decide,
  DEFAULT_BUDGET,
  HOUR_MS,
  setLimits,
  spentOf,
  validLimits,
  withSpent,
  type BudgetLimits,
  type BudgetState,
  type UsageEvent,
} from './budget'

const NO_CAPS: BudgetLimits = {
  tokensPerGoal: null,
  tokensPerHour: null,
  usdPerGoal: null,
  usdPerHour: null,
}

function run(state: BudgetState, events: UsageEvent[]) {
  let decision = decide(state, 0)
  for (const event of events) ({ state, decision } = budgetStep(state, event, event.at))
  return { state, decision }
}

const call = (at: number, tokens: number, usd: number | null = 0, goal: string | null = 'g1') => ({
  at,
  goal,
  tokens,
  usd,
})

describe('budget', () => {
  it('has caps by default', () => {
    expect(DEFAULT_BUDGET.tokensPerHour).toBeGreaterThan(0)
    expect(DEFAULT_BUDGET.tokensPerGoal).toBeGreaterThan(0)
    expect(DEFAULT_BUDGET.usdPerHour).toBeGreaterThan(0)
    expect(DEFAULT_BUDGET.usdPerGoal).toBeGreaterThan(0)
    expect(decide(createBudget(), 0)).toMatchObject({ paused: false, skipGoals: [], hits: [] })
  })

  it('pauses the role when the hourly token cap is reached, not before', () => {
    const budget = createBudget({ ...NO_CAPS, tokensPerHour: 1_000 })
    expect(run(budget, [call(0, 600), call(10, 399)]).decision.paused).toBe(false)
    const { decision } = run(budget, [call(0, 600), call(10, 400)])
    expect(decision.paused).toBe(true)
    expect(decision.hits).toEqual([{ cap: 'tokensPerHour', goal: null, used: 1_000, limit: 1_000 }])
  })

  it('resumes when the cap is raised', () => {
    const { state } = run(createBudget({ ...NO_CAPS, tokensPerHour: 1_000 }), [call(0, 1_500)])
    expect(decide(state, 1).paused).toBe(true)
    const raised = setLimits(state, { ...state.limits, tokensPerHour: 2_000 })
    expect(decide(raised, 1)).toMatchObject({ paused: false, hits: [] })
    expect(decide(setLimits(state, { ...state.limits, tokensPerHour: null }), 1).paused).toBe(false)
  })

  it('resumes by itself once the hour has let go of enough, and says when', () => {
    const budget = createBudget({ ...NO_CAPS, tokensPerHour: 1_000 })
    const { state, decision } = run(budget, [call(0, 500), call(1_000, 600)])
    expect(decision.paused).toBe(true)
    // the first call leaving the window brings it under the cap
    expect(decision.resumesAt).toBe(HOUR_MS)
    expect(budgetStep(state, null, HOUR_MS - 1).decision.paused).toBe(true)
    const later = budgetStep(state, null, HOUR_MS)
    expect(later.decision).toMatchObject({ paused: false, resumesAt: null })
    expect(later.decision.hour.tokens).toBe(600)
    expect(later.state.recent).toHaveLength(1)
  })

  it('stops work on a goal over its cap, and only on that goal', () => {
    const budget = createBudget({ ...NO_CAPS, tokensPerGoal: 1_000 })
    const { decision } = run(budget, [
      call(0, 800, 0, 'a'),
      call(1, 300, 0, 'a'),
      call(2, 900, 0, 'b'),
    ])
    expect(decision.paused).toBe(false)
    expect(decision.skipGoals).toEqual(['a'])
    expect(decision.hits).toEqual([{ cap: 'tokensPerGoal', goal: 'a', used: 1_100, limit: 1_000 }])
  })

  it('per-goal usage does not age out with the hour', () => {
    const { state } = run(createBudget({ ...NO_CAPS, tokensPerGoal: 1_000 }), [call(0, 1_000)])
    expect(decide(state, 5 * HOUR_MS).skipGoals).toEqual(['g1'])
  })

  it('caps estimated cost per hour and per goal', () => {
    const budget = createBudget({ ...NO_CAPS, usdPerHour: 1, usdPerGoal: 0.5 })
    const { decision } = run(budget, [
      call(0, 10, 0.4, 'a'),
      call(1, 10, 0.2, 'a'),
      call(2, 10, 0.45, 'b'),
    ])
    expect(decision.skipGoals).toEqual(['a'])
    expect(decision.paused).toBe(true)
    expect(decision.hits.map((hit) => hit.cap)).toEqual(['usdPerHour', 'usdPerGoal'])
    expect(decision.hour.usd).toBeCloseTo(1.05)
  })

  it('cannot enforce a cost cap on a model with no known price: says so, still caps tokens', () => {
    const budget = createBudget({ ...NO_CAPS, usdPerHour: 0.01, tokensPerHour: 1_000 })
    const under = run(budget, [call(0, 900, null)]).decision
    expect(under).toMatchObject({ paused: false, costUnenforced: true })
    expect(under.hour).toEqual({ tokens: 900, usd: 0, unpriced: 1 })
    const over = run(budget, [call(0, 900, null), call(1, 100, null)]).decision
    expect(over.paused).toBe(true)
    expect(over.hits.map((hit) => hit.cap)).toEqual(['tokensPerHour'])
  })

  it('without a cost cap, an unknown price is nothing to warn about', () => {
    const budget = createBudget({ ...NO_CAPS, tokensPerHour: 1_000 })
    expect(run(budget, [call(0, 10, null)]).decision.costUnenforced).toBe(false)
  })

  it('counts calls whose goal is gone against the hour only', () => {
    const budget = createBudget({ ...NO_CAPS, tokensPerGoal: 10, tokensPerHour: 100 })
    const { decision, state } = run(budget, [call(0, 50, 0, null)])
    expect(state.goals).toEqual({})
    expect(decision.hour.tokens).toBe(50)
    expect(decision.skipGoals).toEqual([])
  })

  it('checks limits a person typed', () => {
    expect(validLimits(DEFAULT_BUDGET)).toBe(true)
    expect(validLimits(NO_CAPS)).toBe(true)
    expect(validLimits({ ...NO_CAPS, tokensPerHour: -1 })).toBe(false)
    expect(validLimits({ ...NO_CAPS, usdPerGoal: Number.NaN })).toBe(false)
  })
})

describe('saved spending (a reload)', () => {
  it('comes back: recent events still in the window and every goal’s sum, merged with new ones', () => {
    const limits = { ...DEFAULT_BUDGET, tokensPerHour: 1_000 }
    const before = budgetStep(
      budgetStep(createBudget(limits), { at: 0, goal: 'g', tokens: 600, usd: 0.1 }, 0).state,
      { at: 10_000, goal: 'g', tokens: 500, usd: 0.2 },
      10_000,
    )
    expect(before.decision.paused).toBe(true)
    const saved = JSON.parse(JSON.stringify(spentOf(before.state))) as unknown
    const reloaded = withSpent(createBudget(limits), saved, 20_000)
    expect(decide(reloaded, 20_000).paused).toBe(true)
    expect(reloaded.goals.g).toEqual({ tokens: 1_100, usd: 0.30000000000000004, unpriced: 0 })
    // the hour moves on: the first event ages out and the cap lets go
    expect(decide(reloaded, HOUR_MS + 1).paused).toBe(false)
  })

  it('skips what is malformed and drops events older than the hour', () => {
    const saved = {
      recent: [
        { at: 0, goal: 'g', tokens: 5, usd: null },
        { at: 'soon', goal: 'g', tokens: 5, usd: null },
        { at: HOUR_MS * 2, goal: null, tokens: -1, usd: 0 },
        { at: HOUR_MS * 2, goal: null, tokens: 7, usd: 0.01 },
      ],
      goals: { g: { tokens: 10, usd: 0, unpriced: 2 }, h: { tokens: 'x' } },
    }
    const state = withSpent(createBudget(), saved, HOUR_MS * 2 + 1)
    expect(state.recent).toEqual([{ at: HOUR_MS * 2, goal: null, tokens: 7, usd: 0.01 }])
    expect(state.goals).toEqual({ g: { tokens: 10, usd: 0, unpriced: 2 } })
    expect(withSpent(createBudget(), null, 0)).toEqual(createBudget())
  })
})
