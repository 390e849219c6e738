/**
 * A tab's budget: caps on the tokens and the estimated cost its role spends,
 * per root goal and per hour. Pure: (state, usage event, now) → decision.
 *
 * - Usage is what the LLM calls report (their real token counts, priced at
 *   list prices by src/llm/pricing.ts). The offline model spends neither
 *   key nor money and is not counted.
 * - An hourly cap reached pauses the role (no new LLM work; work in flight
 *   finishes). The hour is a sliding window, so the role also resumes by
 *   itself once enough of the last hour's spending has aged out.
 * - A per-goal cap reached stops new work on that root goal only: the role
 *   keeps working on the others.
 * - A call whose model has no known price has an unknown cost: it counts
 *   against the token caps, not the cost caps, and the decision says that
 *   the cost caps could not be enforced for it.
 * - Raising a cap (setLimits) takes effect at the next decision.
 * - What was spent survives a reload (issue 24): the driver saves the
 *   recent events and the per-goal sums (spentOf) and merges them back at
 *   start (withSpent), so a reload does not lift an hourly cap.
 */

/** Caps; null means no cap. Tokens are input + output tokens. */
export interface BudgetLimits {
  tokensPerGoal: number | null
  tokensPerHour: number | null
  usdPerGoal: number | null
  usdPerHour: number | null
}

/**
 * Defaults, for a tab that was never told otherwise. Measured (issue 9): 21
 * goals cost a room of 6 tabs about 77k tokens at their first level alone,
 * some 3.7k tokens a goal a level; a goal grown three levels deep with its
 * leaves executed stays well under 300k tokens for one tab, so the per-goal
 * cap stops only a runaway goal, and 1M tokens an hour a flood of goals. At
 * mid-range list prices (claude-sonnet-4-5: $3 in, $15 out per million)
 * 300k tokens are about $1–2: $2 a goal and $5 an hour stop an expensive
 * model before its token caps would. A person raises them in the tab's
 * settings, or with the agent's flags.
 */
export const DEFAULT_BUDGET: BudgetLimits = {
  tokensPerGoal: 300_000,
  tokensPerHour: 1_000_000,
  usdPerGoal: 2,
  usdPerHour: 5,
}

/** The hourly caps' window. */
export const HOUR_MS = 3_600_000

/** One finished LLM call, as the budget counts it. */
export interface UsageEvent {
  /** local time it finished */
  at: number
  /** the root goal it worked for (null if that was no longer known) */
  goal: string | null
  /** input + output tokens, as the provider reported them */
  tokens: number
  /** estimated cost; null when the model's price is unknown */
  usd: number | null
}

export interface Spent {
  tokens: number
  usd: number
  /** calls whose cost is unknown (not in usd) */
  unpriced: number
}

export interface BudgetState {
  limits: BudgetLimits
  /** events of the last hour (and a little older until the next prune), oldest first */
  recent: readonly UsageEvent[]
  /** everything spent on each root goal by this tab */
  goals: Readonly<Record<string, Spent>>
}

export type CapName = 'tokensPerHour' | 'usdPerHour' | 'tokensPerGoal' | 'usdPerGoal'

export interface CapHit {
  cap: CapName
  /** the root goal, for a per-goal cap */
  goal: string | null
  used: number
  limit: number
}

export interface BudgetDecision {
  /** an hourly cap is reached: the role takes no new LLM work */
  paused: boolean
  /** root goals whose per-goal cap is reached: no new work for them */
  skipGoals: string[]
  /** every cap reached, hourly first */
  hits: CapHit[]
  /** spent in the last hour */
  hour: Spent
  /** a cost cap is set but some of the counted spending has no known price */
  costUnenforced: boolean
  /** paused: local time the hourly window will have let go of enough to resume; null if not paused */
  resumesAt: number | null
}

const ZERO: Spent = { tokens: 0, usd: 0, unpriced: 0 }

export function createBudget(limits: BudgetLimits = DEFAULT_BUDGET): BudgetState {
  return { limits: { ...limits }, recent: [], goals: {} }
}

export function setLimits(state: BudgetState, limits: BudgetLimits): BudgetState {
  return { ...state, limits: { ...limits } }
}

function add(spent: Spent, event: UsageEvent): Spent {
  return {
    tokens: spent.tokens + event.tokens,
    usd: spent.usd + (event.usd ?? 0),
    unpriced: spent.unpriced + (event.usd === null ? 1 : 0),
  }
}

/** Counts one call. Events with nothing spent (0 tokens) are not kept. */
export function spend(state: BudgetState, event: UsageEvent): BudgetState {
  if (event.tokens <= 0 && !event.usd) return state
  const goals =
    event.goal === null
      ? state.goals
      : { ...state.goals, [event.goal]: add(state.goals[event.goal] ?? ZERO, event) }
  return { ...state, recent: [...state.recent, event], goals }
}

function reached(limit: number | null, used: number): limit is number {
  return limit !== null && used >= limit
}

/** The caps as they stand at `now`. */
export function decide(state: BudgetState, now: number): BudgetDecision {
  const { limits } = state
  const live = state.recent.filter((event) => now - event.at < HOUR_MS)
  const hour = live.reduce(add, ZERO)
  const hits: CapHit[] = []
  if (reached(limits.tokensPerHour, hour.tokens))
    hits.push({ cap: 'tokensPerHour', goal: null, used: hour.tokens, limit: limits.tokensPerHour })
  if (reached(limits.usdPerHour, hour.usd))
    hits.push({ cap: 'usdPerHour', goal: null, used: hour.usd, limit: limits.usdPerHour })
  const paused = hits.length > 0
  const skipGoals: string[] = []
  let unpricedGoal = false
  for (const goal of Object.keys(state.goals).sort()) {
    const spent = state.goals[goal]!
    if (spent.unpriced > 0) unpricedGoal = true
    const before = hits.length
    if (reached(limits.tokensPerGoal, spent.tokens))
      hits.push({ cap: 'tokensPerGoal', goal, used: spent.tokens, limit: limits.tokensPerGoal })
    if (reached(limits.usdPerGoal, spent.usd))
      hits.push({ cap: 'usdPerGoal', goal, used: spent.usd, limit: limits.usdPerGoal })
    if (hits.length > before) skipGoals.push(goal)
  }
  const costUnenforced =
    (limits.usdPerHour !== null && hour.unpriced > 0) ||
    (limits.usdPerGoal !== null && unpricedGoal)
  return {
    paused,
    skipGoals,
    hits,
    hour,
    costUnenforced,
    resumesAt: paused ? resumeTime(live, limits) : null,
  }
}

/** When the hourly window will be back under every hourly cap, if nothing more is spent. */
function resumeTime(live: readonly UsageEvent[], limits: BudgetLimits): number | null {
  let spent = live.reduce(add, ZERO)
  for (const event of live) {
    spent = {
      tokens: spent.tokens - event.tokens,
      usd: spent.usd - (event.usd ?? 0),
      unpriced: spent.unpriced,
    }
    if (!reached(limits.tokensPerHour, spent.tokens) && !reached(limits.usdPerHour, spent.usd))
      return event.at + HOUR_MS
  }
  return null
}

/** Drops events older than the window: nothing decided needs them any more. */
export function prune(state: BudgetState, now: number): BudgetState {
  const recent = state.recent.filter((event) => now - event.at < HOUR_MS)
  return recent.length === state.recent.length ? state : { ...state, recent }
}

/** One step: count the event (if any), forget what aged out, decide. */
export function budgetStep(
  state: BudgetState,
  event: UsageEvent | null,
  now: number,
): { state: BudgetState; decision: BudgetDecision } {
  const next = prune(event ? spend(state, event) : state, now)
  return { state: next, decision: decide(next, now) }
}

/** What a budget has spent, as it is saved: the last hour's events and every goal's sum. */
export interface SavedSpending {
  recent: UsageEvent[]
  goals: Record<string, Spent>
}

export function spentOf(state: BudgetState): SavedSpending {
  return { recent: [...state.recent], goals: { ...state.goals } }
}

const isSpent = (v: unknown): v is Spent =>
  v !== null &&
  typeof v === 'object' &&
  [(v as Spent).tokens, (v as Spent).usd, (v as Spent).unpriced].every(
    (n) => typeof n === 'number' && Number.isFinite(n) && n >= 0,
  )

const isEvent = (v: unknown): v is UsageEvent => {
  const e = v as UsageEvent
  return (
    v !== null &&
    typeof v === 'object' &&
    Number.isFinite(e.at) &&
    Number.isFinite(e.tokens) &&
    e.tokens >= 0 &&
    (e.goal === null || typeof e.goal === 'string') &&
    (e.usd === null || (typeof e.usd === 'number' && Number.isFinite(e.usd) && e.usd >= 0))
  )
}

/**
 * Adds saved spending (from before a reload) to a budget: its events (those
 * still in the window at `now`) and its per-goal sums. Anything malformed in
 * the saved data is skipped: storage is this peer's own, but may be old.
 */
export function withSpent(state: BudgetState, saved: unknown, now: number): BudgetState {
  if (saved === null || typeof saved !== 'object') return state
  const { recent, goals } = saved as Partial<SavedSpending>
  const events = (Array.isArray(recent) ? recent : []).filter(isEvent)
  const merged: Record<string, Spent> = { ...state.goals }
  for (const [goal, spent] of Object.entries(goals && typeof goals === 'object' ? goals : {})) {
    if (!isSpent(spent)) continue
    const mine = merged[goal] ?? ZERO
    merged[goal] = {
      tokens: mine.tokens + spent.tokens,
      usd: mine.usd + spent.usd,
      unpriced: mine.unpriced + spent.unpriced,
    }
  }
  const all = [...events, ...state.recent].sort((a, b) => a.at - b.at)
  return prune({ ...state, recent: all, goals: merged }, now)
}

/** Checks person-entered limits: each a finite number ≥ 0, or null. */
export function validLimits(limits: BudgetLimits): boolean {
  return Object.values(limits).every(
    (value) =>
      value === null || (typeof value === 'number' && Number.isFinite(value) && value >= 0),
  )
}
