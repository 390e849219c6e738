import { beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_BUDGET } from '../../runtime/budget'
import {
  loadBudget,
  loadGoalsFrom,
  parseCap,
  raisedCap,
  saveBudget,
  saveGoalsFrom,
} from './budget-settings'

beforeEach(() => {
  const items = new Map<string, string>()
  const storage = {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  }
  Object.defineProperty(globalThis, 'localStorage', { value: storage, configurable: true })
})

describe('budget settings', () => {
  it('defaults, then remembers caps and the goal source for this browser', () => {
    expect(loadBudget()).toEqual(DEFAULT_BUDGET)
    expect(loadGoalsFrom()).toBe('anyone')
    saveBudget({ ...DEFAULT_BUDGET, tokensPerHour: 5_000, usdPerGoal: null })
    saveGoalsFrom('this-browser')
    expect(loadBudget()).toEqual({ ...DEFAULT_BUDGET, tokensPerHour: 5_000, usdPerGoal: null })
    expect(loadGoalsFrom()).toBe('this-browser')
  })

  it('falls back to the defaults for anything unreadable', () => {
    localStorage.setItem('murmuration:budget', '{"tokensPerHour": -3}')
    expect(loadBudget()).toEqual(DEFAULT_BUDGET)
    localStorage.setItem('murmuration:budget', 'not json')
    expect(loadBudget()).toEqual(DEFAULT_BUDGET)
  })

  it('reads typed caps: empty is no cap, junk is refused', () => {
    expect(parseCap('')).toBeNull()
    expect(parseCap(' 2000 ')).toBe(2000)
    expect(parseCap('0.5')).toBe(0.5)
    expect(parseCap('-1')).toBeUndefined()
    expect(parseCap('lots')).toBeUndefined()
  })

  it('raises a cap above what was used', () => {
    expect(raisedCap(1_000, 1_100)).toBe(2_000)
    expect(raisedCap(1_000, 3_000)).toBe(3_750)
    expect(raisedCap(0.5, 0.52)).toBe(1)
  })
})
