import { describe, expect, it } from 'vitest'
import { decide, createBudget, DEFAULT_BUDGET, spend } from '../runtime/budget'
import type { RoleActivity } from '../runtime/types'
import { hitLines, limitsLine, spentLine, unpricedWarning } from './budget-lines'

const activity = (llm: Partial<RoleActivity['llm']>, offline = false): RoleActivity => ({
  role: 'executor',
  capabilities: [],
  model: 'openai-compatible/llama3.1',
  offline,
  healthy: true,
  lastError: null,
  lastErrorKind: null,
  modelStatus: { state: 'unknown', by: null, error: null, kind: null },
  work: [],
  recent: [],
  swarm: [],
  llm: {
    calls: { decompose: 1, score: 0, execute: 2, rollup: 0 },
    inputTokens: 1_000,
    outputTokens: 234,
    costUsd: 0,
    unpricedCalls: 0,
    failedCalls: 0,
    ...llm,
  },
})

describe('agent budget lines', () => {
  it('prints the caps', () => {
    expect(limitsLine({ ...DEFAULT_BUDGET, usdPerHour: null })).toBe(
      'Budget: 300,000 tokens and $2.00 per goal; 1,000,000 tokens and no cap per hour',
    )
  })

  it('never prints an unknown cost as $0', () => {
    expect(spentLine(activity({ unpricedCalls: 3 }))).toBe(
      'spent 1,234 tokens in 3 LLM calls, cost unknown (no known price for the model)',
    )
    expect(spentLine(activity({ costUsd: 0.5, unpricedCalls: 1 }))).toContain(
      'about $0.50 plus an unknown cost',
    )
    expect(spentLine(activity({ costUsd: 0.0412 }))).toContain('about $0.04')
    expect(spentLine(activity({}, true))).toContain('no cost (offline model)')
  })

  it('warns that cost caps cannot hold for an unpriced model', () => {
    expect(unpricedWarning(DEFAULT_BUDGET, false)).toMatch(/cannot be enforced/)
    expect(unpricedWarning(DEFAULT_BUDGET, true)).toBeNull()
    expect(
      unpricedWarning({ ...DEFAULT_BUDGET, usdPerGoal: null, usdPerHour: null }, false),
    ).toBeNull()
  })

  it('names the cap reached and the flag that raises it', () => {
    const budget = spend(createBudget({ ...DEFAULT_BUDGET, tokensPerHour: 1_000 }), {
      at: 0,
      goal: 'g',
      tokens: 1_500,
      usd: null,
    })
    const lines = hitLines({
      ...activity({}),
      budget: {
        limits: budget.limits,
        decision: decide(budget, 1),
        modelPriced: false,
        authors: null,
      },
    })
    expect([...lines.values()]).toEqual([
      'paused: no new LLM work: reached --max-tokens-per-hour 1,000 (1,500 spent); restart with a higher --max-tokens-per-hour to raise it',
    ])
  })
})
