/**
 * Where the time goes: the LLM call timeline of a run (swarm or central),
 * cut along the chain that decided its finish time.
 *
 * For each goal the chain is: known → decompose → first proposal → score
 * calls → two votes on one split (quorum, nominally; the split's subgoals are
 * classified by those votes, protocol version 7) → the subgoal that settled
 * last (recursively: its child goal, or its leaf's execute) → roll-up →
 * (root) the witness sees it. Consecutive segments share their ends, so
 * they add up exactly to the run's time. Each segment is either an LLM call
 * (nominally L) or a wait between calls (gossip, claims, staggers, queueing
 * for a free slot, event-loop lag). For the swarm, claim records split the
 * waits before the accept, execute and roll-up into "until the claim" and
 * "claim → call" (the claim window).
 */
import type { ClaimRecord, PlanRecord } from '../src/protocol/records'
import type { GoalView, PlanTree } from '../src/plan/tree'
import { QUORUM_VOTES } from '../src/protocol/rules'
import { KINDS, PATH_SEPARATOR, type KindCounts, type LlmCall, emptyCounts } from './calls'

export interface Segment {
  /** depth of the goal the segment belongs to (execute: the leaf's depth) */
  depth: number
  stage: string
  /** an LLM call (true) or a wait between calls */
  llm: boolean
  from: number
  to: number
}

interface GoalCalls {
  decompose: LlmCall[]
  score: LlmCall[]
  execute: Map<string, LlmCall[]>
  rollup: LlmCall[]
}

function indexCalls(calls: readonly LlmCall[]): Map<string, GoalCalls> {
  const goals = new Map<string, GoalCalls>()
  const of = (key: string) => {
    let goal = goals.get(key)
    if (!goal) {
      goal = { decompose: [], score: [], execute: new Map(), rollup: [] }
      goals.set(key, goal)
    }
    return goal
  }
  for (const call of calls) {
    if (call.kind === 'unknown') continue
    const goal = of(call.goal)
    if (call.kind === 'execute') {
      const map = goal[call.kind]
      const list = map.get(call.item ?? '') ?? []
      list.push(call)
      map.set(call.item ?? '', list)
    } else {
      goal[call.kind].push(call)
    }
  }
  return goals
}

const firstStart = (calls: readonly LlmCall[] | undefined) =>
  calls && calls.length ? Math.min(...calls.map((c) => c.start)) : NaN
const okEnds = (calls: readonly LlmCall[] | undefined) =>
  (calls ?? [])
    .filter((c) => c.status === 'ok')
    .map((c) => c.end)
    .sort((a, b) => a - b)
/** When some proposal had its QUORUM_VOTES-th vote (calls told apart by `item`, the rationale). */
function quorumAt(scores: readonly LlmCall[]): number {
  const byProposal = new Map<string, LlmCall[]>()
  for (const call of scores) {
    const list = byProposal.get(call.item ?? '')
    if (list) list.push(call)
    else byProposal.set(call.item ?? '', [call])
  }
  const times = [...byProposal.values()]
    .map((calls) => okEnds(calls)[QUORUM_VOTES - 1] ?? NaN)
    .filter(Number.isFinite)
  return times.length ? Math.min(...times) : NaN
}
const firstOkEnd = (calls: readonly LlmCall[] | undefined) => okEnds(calls)[0] ?? NaN

/** Claim times of the swarm's exclusive tasks, by (task type, goal key, item). */
export type ClaimTimes = Map<string, number[]>

const claimKey = (type: ClaimRecord['taskType'], goal: string, item = '') =>
  `${type}|${goal}|${item}`

export function claimTimes(tree: PlanTree, records: readonly PlanRecord[]): ClaimTimes {
  // subject id → what it is, from the tree
  const subjects = new Map<string, { goal: string; item: string }>()
  const walk = (goal: GoalView, path: string[]) => {
    const key = [...path, goal.text].join(PATH_SEPARATOR)
    subjects.set(goal.id, { goal: key, item: '' })
    for (const slot of goal.slots) {
      if (slot.goal) walk(slot.goal, [...path, goal.text])
      else if (slot.nodeId) subjects.set(slot.nodeId, { goal: key, item: slot.text })
    }
  }
  for (const root of tree.goals) walk(root, [])
  const times: ClaimTimes = new Map()
  for (const record of records) {
    if (record.kind !== 'claim') continue
    const subject = subjects.get(record.subject)
    if (!subject) continue
    const key = claimKey(record.taskType, subject.goal, subject.item)
    const list = times.get(key) ?? []
    list.push(record.at)
    times.set(key, list)
  }
  return times
}

/** The latest claim of the task made no later than `start` (the one that led to the call). */
function claimBefore(claims: ClaimTimes | null, key: string, start: number): number | null {
  const list = claims?.get(key)
  if (!list) return null
  const before = list.filter((at) => at <= start + 5)
  return before.length ? Math.max(...before) : null
}

export interface ChainInput {
  calls: readonly LlmCall[]
  roots: string[]
  /** when the root goals were submitted (the chain starts here) */
  startedAt: number
  /** when the run was seen finished (the chain ends here) */
  doneAt: number
  claims?: ClaimTimes | null
}

/** The critical chain of a run, as contiguous segments from startedAt to doneAt. */
export function criticalChain(input: ChainInput): Segment[] {
  const goals = indexCalls(input.calls)
  const claims = input.claims ?? null
  const segments: Segment[] = []
  const push = (depth: number, stage: string, llm: boolean, from: number, to: number) => {
    if (Number.isFinite(from) && Number.isFinite(to)) segments.push({ depth, stage, llm, from, to })
  }
  const settledAt = (key: string): number => firstOkEnd(goals.get(key)?.rollup)

  /** Walks one goal from the time it was known; returns its roll-up's end. */
  const walk = (key: string, knownAt: number, depth: number): number => {
    const g = goals.get(key)
    if (!g) return NaN
    const dStart = firstStart(g.decompose)
    const dEnd = firstOkEnd(g.decompose)
    push(depth, 'goal known → decompose starts', false, knownAt, dStart)
    push(depth, 'decompose (LLM)', true, dStart, dEnd)
    const sStart = firstStart(g.score)
    const quorum = quorumAt(g.score)
    push(depth, 'first proposal → score starts', false, dEnd, sStart)
    push(depth, 'score (LLM) until a split has 2 votes', true, sStart, quorum)
    // the accept follows the quorum (its decider claimed at the first proposal)
    let accepted = quorum
    const decideClaim = claimBefore(claims, claimKey('decide', key), Infinity)
    if (decideClaim !== null && decideClaim >= quorum) {
      push(depth, '2 votes → decide claimed', false, quorum, decideClaim)
      accepted = decideClaim
    }
    // the subgoal that settled last decides when this goal can roll up: a leaf
    // (its execute calls) or a child goal (its own calls, one level deeper)
    const items = new Set(g.execute.keys())
    const prefix = key + PATH_SEPARATOR
    for (const other of goals.keys()) {
      const rest = other.startsWith(prefix) ? other.slice(prefix.length) : null
      if (rest !== null && !rest.includes(PATH_SEPARATOR)) items.add(rest)
    }
    let critical: { item: string; settled: number } | null = null
    for (const item of items) {
      const child = prefix + item
      const settled = goals.has(child) ? settledAt(child) : firstOkEnd(g.execute.get(item))
      if (critical === null || settled > critical.settled || Number.isNaN(critical.settled)) {
        critical = { item, settled }
      }
    }
    if (!critical) return NaN
    const child = prefix + critical.item
    let settled: number
    if (goals.has(child)) {
      settled = walk(child, accepted, depth + 1)
    } else {
      const exec = g.execute.get(critical.item)
      const eStart = firstStart(exec)
      settled = firstOkEnd(exec)
      const claim = claimBefore(claims, claimKey('execute', key, critical.item), eStart)
      if (claim !== null && claim >= accepted) {
        push(depth + 1, 'split accepted → execute claimed', false, accepted, claim)
        push(depth + 1, 'execute claimed → execute starts', false, claim, eStart)
      } else {
        push(depth + 1, 'split accepted → execute starts', false, accepted, eStart)
      }
      push(depth + 1, 'execute (LLM)', true, eStart, settled)
    }
    const rStart = firstStart(g.rollup)
    const rEnd = firstOkEnd(g.rollup)
    const claim = claimBefore(claims, claimKey('rollup', key), rStart)
    if (claim !== null && claim >= settled) {
      push(depth, 'last subgoal settled → roll-up claimed', false, settled, claim)
      push(depth, 'roll-up claimed → roll-up starts', false, claim, rStart)
    } else {
      push(depth, 'last subgoal settled → roll-up starts', false, settled, rStart)
    }
    push(depth, 'roll-up (LLM)', true, rStart, rEnd)
    return rEnd
  }

  // the root that finished last
  let last: string | null = null
  for (const root of input.roots) {
    if (last === null || settledAt(root) > settledAt(last)) last = root
  }
  if (last === null) return segments
  const end = walk(last, input.startedAt, 0)
  push(0, 'root rolled up → witness sees it', false, end, input.doneAt)
  return segments
}

export interface StageTotal {
  stage: string
  llm: boolean
  seconds: number
  /** how many segments (one per level, mostly) */
  count: number
}

/** Chain seconds per stage, in first-seen order. */
export function byStage(segments: readonly Segment[]): StageTotal[] {
  const totals = new Map<string, StageTotal>()
  for (const s of segments) {
    const total = totals.get(s.stage) ?? { stage: s.stage, llm: s.llm, seconds: 0, count: 0 }
    total.seconds += (s.to - s.from) / 1000
    total.count++
    totals.set(s.stage, total)
  }
  return [...totals.values()]
}

/** Chain seconds per depth: LLM time and waits. */
export function byDepth(
  segments: readonly Segment[],
): Array<{ depth: number; llm: number; wait: number }> {
  const rows = new Map<number, { depth: number; llm: number; wait: number }>()
  for (const s of segments) {
    const row = rows.get(s.depth) ?? { depth: s.depth, llm: 0, wait: 0 }
    if (s.llm) row.llm += (s.to - s.from) / 1000
    else row.wait += (s.to - s.from) / 1000
    rows.set(s.depth, row)
  }
  return [...rows.values()].sort((a, b) => a.depth - b.depth)
}

export interface CallSummary {
  /** HTTP requests made, by kind (aborted ones included) */
  made: KindCounts
  /** of those, answered */
  answered: KindCounts
  aborted: KindCounts
  failed: KindCounts
}

export function summariseCalls(calls: readonly LlmCall[]): CallSummary {
  const made = emptyCounts()
  const answered = emptyCounts()
  const aborted = emptyCounts()
  const failed = emptyCounts()
  for (const call of calls) {
    if (call.kind === 'unknown') continue
    made[call.kind]++
    if (call.status === 'ok') answered[call.kind]++
    else if (call.status === 'aborted') aborted[call.kind]++
    else failed[call.kind]++
  }
  return { made, answered, aborted, failed }
}

/** Per goal (by key): how many decompose calls the run made, and score calls per proposal, most first. */
export function perGoalBudget(
  calls: readonly LlmCall[],
): Map<string, { proposals: number; scores: number[] }> {
  const goals = new Map<string, { proposals: number; scores: Map<string, number> }>()
  for (const call of calls) {
    if (call.kind !== 'decompose' && call.kind !== 'score') continue
    const goal = goals.get(call.goal) ?? { proposals: 0, scores: new Map<string, number>() }
    if (call.kind === 'decompose') goal.proposals++
    else goal.scores.set(call.item ?? '', (goal.scores.get(call.item ?? '') ?? 0) + 1)
    goals.set(call.goal, goal)
  }
  return new Map(
    [...goals].map(([key, goal]) => [
      key,
      { proposals: goal.proposals, scores: [...goal.scores.values()].sort((a, b) => b - a) },
    ]),
  )
}

/** Per depth and kind: calls made, first start and last end relative to `t0`, in seconds. */
export function waves(
  calls: readonly LlmCall[],
  t0: number,
): Array<{ depth: number; kind: string; calls: number; first: number; last: number }> {
  const rows = new Map<
    string,
    { depth: number; kind: string; calls: number; first: number; last: number }
  >()
  for (const call of calls) {
    if (call.kind === 'unknown') continue
    // an execute belongs to its leaf's depth
    const depth = call.kind === 'execute' ? call.depth + 1 : call.depth
    const key = `${depth}|${call.kind}`
    const row = rows.get(key) ?? {
      depth,
      kind: call.kind,
      calls: 0,
      first: Infinity,
      last: -Infinity,
    }
    row.calls++
    row.first = Math.min(row.first, (call.start - t0) / 1000)
    row.last = Math.max(row.last, (call.end - t0) / 1000)
    rows.set(key, row)
  }
  const order = (kind: string) => KINDS.indexOf(kind as never)
  return [...rows.values()].sort((a, b) => a.depth - b.depth || order(a.kind) - order(b.kind))
}

/**
 * The LLM critical path in calls: D × (decompose + score) + execute + D ×
 * roll-up (since protocol version 7 the score judges the subgoals: no
 * classify call; before, D × 3 + 1 + D).
 */
export function criticalPathCalls(depth: number): number {
  return depth * 2 + 1 + depth
}
