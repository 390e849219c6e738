/**
 * A tab's consent settings, remembered per browser (localStorage, like the
 * model settings): the caps on what its role spends, and whose goals it
 * works on. Every tab of this browser starts with them; each tab counts its
 * own spending.
 */
import { DEFAULT_BUDGET, validLimits, type BudgetLimits } from '../../runtime/budget'
import type { GoalSource } from '../../runtime/types'

const BUDGET_KEY = 'murmuration:budget'
const GOALS_FROM_KEY = 'murmuration:goals-from'

function read(key: string): string | null {
  try {
    return localStorage.getItem(key)
  } catch {
    return null
  }
}

function write(key: string, value: string): void {
  try {
    localStorage.setItem(key, value)
  } catch {
    // not remembered; the session still uses the value
  }
}

/** The saved caps, or the defaults (also for anything unreadable). */
export function loadBudget(): BudgetLimits {
  const raw = read(BUDGET_KEY)
  if (raw === null) return { ...DEFAULT_BUDGET }
  try {
    const parsed = JSON.parse(raw) as Partial<BudgetLimits>
    const limits: BudgetLimits = { ...DEFAULT_BUDGET }
    for (const key of Object.keys(DEFAULT_BUDGET) as (keyof BudgetLimits)[]) {
      if (key in parsed) limits[key] = parsed[key] ?? null
    }
    return validLimits(limits) ? limits : { ...DEFAULT_BUDGET }
  } catch {
    return { ...DEFAULT_BUDGET }
  }
}

export function saveBudget(limits: BudgetLimits): void {
  write(BUDGET_KEY, JSON.stringify(limits))
}

export function loadGoalsFrom(): GoalSource {
  return read(GOALS_FROM_KEY) === 'this-browser' ? 'this-browser' : 'anyone'
}

export function saveGoalsFrom(source: GoalSource): void {
  write(GOALS_FROM_KEY, source)
}

/** A cap a person typed: empty means no cap; else a number ≥ 0 (undefined when it is not one). */
export function parseCap(text: string): number | null | undefined {
  const trimmed = text.trim()
  if (trimmed === '') return null
  const value = Number(trimmed)
  return Number.isFinite(value) && value >= 0 ? value : undefined
}

/**
 * The cap a "raise" button offers: double the cap, and at least enough to
 * leave room for a quarter more than what was used.
 */
export function raisedCap(limit: number, used: number): number {
  const next = Math.max(limit * 2, used * 1.25)
  return limit >= 1 ? Math.ceil(next) : Math.ceil(next * 100) / 100
}
