/**
 * What a role spends against its caps, as its driver (driver.ts) keeps it:
 * the budget's state and the decision in force (budget.ts, pure), and the
 * total saved across reloads. Until what was spent before this start is
 * loaded the role counts as paused, so a reload cannot slip past a cap.
 */
import {
  budgetStep,
  createBudget,
  DEFAULT_BUDGET,
  setLimits,
  spentOf,
  withSpent,
  type BudgetDecision,
  type BudgetLimits,
  type BudgetState,
  type UsageEvent,
} from './budget'
import type { SpendingPersistence } from './persist'

export interface RoleSpendingInit {
  /** the caps (default DEFAULT_BUDGET) */
  limits?: BudgetLimits
  /** where the total is kept across reloads; absent, nothing is loaded or saved */
  persistence?: SpendingPersistence
  now: () => number
  log?: (message: string) => void
}

export class RoleSpending {
  private state: BudgetState
  private decided: BudgetDecision
  private loaded: boolean
  /** the last save (saves run one after another) */
  private saving: Promise<void> = Promise.resolve()

  constructor(private readonly init: RoleSpendingInit) {
    this.loaded = init.persistence === undefined
    const first = budgetStep(createBudget(init.limits ?? DEFAULT_BUDGET), null, init.now())
    this.state = first.state
    this.decided = first.decision
  }

  /** Loads what was spent before this start; `done` runs once it is in (or could not be). */
  load(done: () => void): void {
    this.init.persistence
      ?.load()
      .then(
        (saved) => {
          this.state = withSpent(this.state, saved, this.init.now())
        },
        (err: Error) => this.init.log?.(`could not load what this role spent: ${err.message}`),
      )
      .finally(() => {
        this.loaded = true
        done()
      })
  }

  get decision(): BudgetDecision {
    return this.decided
  }

  get limits(): BudgetLimits {
    return { ...this.state.limits }
  }

  /** No LLM work may start: an hourly cap is reached, or the past spending is not loaded yet. */
  get paused(): boolean {
    return this.decided.paused || !this.loaded
  }

  /** Lets time pass (spending leaves the hour); says whether the decision changed. */
  advance(): boolean {
    const { state, decision } = budgetStep(this.state, null, this.init.now())
    this.state = state
    const changed = JSON.stringify(decision) !== JSON.stringify(this.decided)
    this.decided = decision
    return changed
  }

  /** Would spending `event` reach a cap? Why, in words, or null. */
  wouldReach(event: UsageEvent): string | null {
    const { decision } = budgetStep(this.state, event, this.init.now())
    if (decision.paused) return 'an hourly budget cap was reached'
    if (event.goal !== null && decision.skipGoals.includes(event.goal))
      return "this goal's budget cap was reached"
    return null
  }

  /** Counts what a finished call spent, and saves the new total. */
  count(event: UsageEvent): void {
    this.state = budgetStep(this.state, event, this.init.now()).state
    const persistence = this.init.persistence
    if (!this.loaded || !persistence) return
    // one save at a time, in order: two writes in flight could land the older total last
    const saved = spentOf(this.state)
    this.saving = this.saving
      .then(() => persistence.save(saved))
      .catch((err: Error) => this.init.log?.(`could not save what this role spent: ${err.message}`))
  }

  /** New caps: raising the one that was reached resumes the role at its next step. */
  setLimits(limits: BudgetLimits): void {
    this.state = setLimits(this.state, limits)
  }

  /** Resolves once what was spent so far is in storage. */
  saved(): Promise<void> {
    return this.saving
  }
}
