/**
 * The plan as a tree for people and tests: goal → competing proposals with
 * their scores → accepted split → subgoals → child goals or leaves, each with
 * its status. Plain JSON (it crosses from the role's worker to the UI), and
 * a function of the derived plan only, so peers with the same records show
 * the same tree.
 */
import type { Capability } from '../protocol/capabilities'
import type { AcceptRecord, ApprovalMode, PlanRecord, Usage } from '../protocol/records'
import { MAX_REDOS_PER_LEAF, MAX_VETOES_PER_GOAL } from '../protocol/limits'
import type { Step } from '../protocol/steps'
import type { DerivedGoal, DerivedPlan, DerivedSlot, GoalStatus, SlotStatus } from './derive'
import { meanScore } from './acceptance'
import { planOver } from './archive'
import type { TaskState } from './tasks'
import type { PlanState } from './state'

export interface TaskView {
  id: string
  status: TaskState['status']
  epoch: number
  holder: string | null
  claimedAt: number | null
  output: string | null
  resultBy: string | null
  /** what the result's executor did on its way (code runs, searches), as its record says; null when it used no tool */
  steps: Step[] | null
  failures: { from: string; detail: string }[]
  gap: string | null
}

export interface ProposalView {
  id: string
  from: string
  subgoals: { text: string; dependsOn: number[] }[]
  rationale: string
  votes: { from: string; score: number; notes: string }[]
  mean: number | null
  accepted: boolean
  offline: boolean
}

export interface SlotView {
  index: number
  text: string
  dependsOn: number[]
  status: SlotStatus
  nodeId: string | null
  atomic: boolean | null
  capped: boolean
  capability: Capability | null
  reason: string | null
  classifyError: string | null
  blocked: boolean
  leaf: TaskView | null
  /** earlier runs of the leaf its author sent back, oldest first, each with the author's note */
  superseded: { task: TaskView; note: string }[]
  /** how many more times the author may send this leaf back (MAX_REDOS_PER_LEAF) */
  redosLeft: number
  goal: GoalView | null
}

export interface GoalView {
  id: string
  text: string
  /** root goals: when it was submitted (the submitter's clock); child goals: null */
  createdAt: number | null
  depth: number
  status: GoalStatus
  cancelled: boolean
  createdBy: string
  proposals: ProposalView[]
  accepted: {
    proposal: string
    basis: AcceptRecord['basis']
    decidedBy: string
    score: number
  } | null
  slots: SlotView[]
  rollup: TaskView
  /** the root's author paused the goal: nothing new is claimed under it */
  paused: boolean
  approvalMode: ApprovalMode
  /** 'waiting': the accepted split waits for the author (createdBy) to approve or veto it */
  approval: 'none' | 'waiting' | 'approved'
  /** the author's vetoes, oldest first: the note and the split sent back */
  vetoes: { note: string; subgoals: string[] }[]
  /** proposals a veto sent back (all of them, for the next veto to list) */
  retired: string[]
  /** how many more vetoes count for this goal (MAX_VETOES_PER_GOAL) */
  vetoesLeft: number
  /** the roll-up a redo below made stale, if it was written */
  supersededRollup: string | null
}

export interface UsageTotals {
  calls: number
  inputTokens: number
  outputTokens: number
  offlineCalls: number
  /** at list prices of the models the records name (0 for the offline model); calls of unpriced models are not in it */
  costUsd: number
  /** calls of models with no known price: their cost is unknown, so costUsd is a lower bound when > 0 */
  unpricedCalls: number
}

export interface PlanTree {
  goals: GoalView[]
  /** every goal is settled and none is held: nothing to do until a new goal (archive.ts planOver) */
  over: boolean
  progress: { leaves: number; leavesDone: number; leavesFailed: number; goals: number }
  /** LLM usage by role, as the records report it */
  usage: Record<'decomposer' | 'scorer' | 'executor', UsageTotals>
}

function taskView(task: TaskState): TaskView {
  return {
    id: task.id,
    status: task.status,
    epoch: task.epoch,
    holder: task.released ? null : (task.holder?.from ?? null),
    claimedAt: task.holder?.at ?? null,
    output: task.result?.output ?? null,
    resultBy: task.result?.from ?? null,
    steps: task.result?.steps ?? null,
    failures: task.failures.map((failure) => ({ from: failure.from, detail: failure.detail })),
    gap: task.gap?.detail ?? null,
  }
}

function slotView(slot: DerivedSlot, plan: DerivedPlan): SlotView {
  const child = slot.child ? plan.goals.get(slot.child) : undefined
  return {
    index: slot.index,
    text: slot.text,
    dependsOn: slot.dependsOn,
    status: slot.status,
    nodeId: slot.id,
    atomic: slot.node ? slot.node.atomic : null,
    capped: slot.node?.capped ?? false,
    capability: slot.capability,
    reason: slot.node?.reason ?? null,
    classifyError: slot.classifyFailure?.detail ?? null,
    blocked: slot.blocked,
    leaf: slot.execute ? taskView(slot.execute) : null,
    superseded: slot.superseded.map((step) => ({
      task: taskView(step.task),
      note: step.redo.note,
    })),
    redosLeft: MAX_REDOS_PER_LEAF - slot.superseded.length,
    goal: child ? goalView(child, plan) : null,
  }
}

function goalView(goal: DerivedGoal, plan: DerivedPlan): GoalView {
  return {
    id: goal.id,
    text: goal.text,
    createdAt: goal.depth === 0 ? goal.createdAt : null,
    depth: goal.depth,
    status: goal.status,
    cancelled: goal.cancelled,
    createdBy: goal.createdBy,
    proposals: goal.proposals.map((proposal) => {
      const votes = goal.votes.get(proposal.id) ?? []
      return {
        id: proposal.id,
        from: proposal.from,
        subgoals: proposal.subgoals,
        rationale: proposal.rationale,
        votes: votes.map((vote) => ({ from: vote.from, score: vote.score, notes: vote.notes })),
        mean: votes.length ? meanScore(votes) : null,
        accepted: goal.accepted?.id === proposal.id,
        offline: proposal.usage.offline,
      }
    }),
    accepted:
      goal.accept && goal.accepted
        ? {
            proposal: goal.accepted.id,
            basis: goal.accept.basis,
            decidedBy: goal.accept.from,
            // the final score of an accepted split is the mean of all its votes
            score: meanScore(goal.votes.get(goal.accepted.id) ?? []),
          }
        : null,
    slots: goal.slots.map((slot) => slotView(slot, plan)),
    rollup: taskView(goal.rollup),
    paused: goal.paused,
    approvalMode: goal.approvalMode,
    approval: goal.approval,
    vetoes: goal.vetoes.map(({ verdict, proposal }) => ({
      note: verdict.note,
      subgoals: proposal?.subgoals.map((subgoal) => subgoal.text) ?? [],
    })),
    retired: goal.retired.map((proposal) => proposal.id),
    vetoesLeft: MAX_VETOES_PER_GOAL - goal.vetoes.length,
    supersededRollup: goal.supersededRollup?.output ?? null,
  }
}

const ROLE_OF_KIND: Partial<Record<PlanRecord['kind'], keyof PlanTree['usage']>> = {
  proposal: 'decomposer',
  score: 'scorer',
  node: 'scorer',
  result: 'executor',
}

/**
 * What a call cost in US dollars, from its usage record. Prices are the LLM
 * layer's knowledge (src/llm/pricing.ts costUsd); they reach the tree as
 * this function, handed in by whoever projects it. Default: nothing costs.
 */
export type CostOf = (usage: Usage) => number | null

const NO_COST: CostOf = () => 0

/**
 * Costs are summed as whole nano-dollars: float addition depends on order,
 * and records() iterates in arrival order, so a float sum could differ
 * between two peers holding the same records. Integers stay exact up to
 * 2^53 nano-dollars (9 million dollars).
 */
const NANOS_PER_USD = 1e9

function addUsage(totals: UsageTotals, nanos: { n: number }, usage: Usage, costUsd: CostOf): void {
  totals.calls++
  totals.inputTokens += usage.inputTokens
  totals.outputTokens += usage.outputTokens
  if (usage.offline) totals.offlineCalls++
  const cost = costUsd(usage)
  if (cost === null) totals.unpricedCalls++
  else nanos.n += Math.round(cost * NANOS_PER_USD)
  totals.costUsd = nanos.n / NANOS_PER_USD
}

/** Usage totals of a role that has made no call. */
export function zeroUsage(): UsageTotals {
  return {
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    offlineCalls: 0,
    costUsd: 0,
    unpricedCalls: 0,
  }
}

export function usageByRole(state: PlanState, costUsd: CostOf = NO_COST): PlanTree['usage'] {
  const usage = { decomposer: zeroUsage(), scorer: zeroUsage(), executor: zeroUsage() }
  const nanos = { decomposer: { n: 0 }, scorer: { n: 0 }, executor: { n: 0 } }
  for (const record of state.records()) {
    if (record.kind === 'failure') {
      if (!record.usage) continue
      const role =
        record.stage === 'decompose'
          ? 'decomposer'
          : record.stage === 'score' || record.stage === 'classify'
            ? 'scorer'
            : 'executor'
      addUsage(usage[role], nanos[role], record.usage, costUsd)
      continue
    }
    const role = ROLE_OF_KIND[record.kind]
    if (role && 'usage' in record) addUsage(usage[role], nanos[role], record.usage, costUsd)
  }
  return usage
}

export function projectTree(
  plan: DerivedPlan,
  state: PlanState,
  costUsd: CostOf = NO_COST,
): PlanTree {
  const goals = plan.roots.map((id) => goalView(plan.goals.get(id)!, plan))
  let leaves = 0
  let leavesDone = 0
  let leavesFailed = 0
  for (const { slot } of plan.leaves.values()) {
    leaves++
    if (slot.status === 'done') leavesDone++
    else if (slot.status === 'failed') leavesFailed++
  }
  return {
    goals,
    over: planOver(plan),
    progress: { leaves, leavesDone, leavesFailed, goals: plan.goals.size },
    usage: usageByRole(state, costUsd),
  }
}
