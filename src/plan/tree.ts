/**
 * The plan as a tree for people and tests: goal → competing proposals with
 * their scores → accepted split → subgoals → child goals or leaves, each with
 * its status. Plain JSON (it crosses from the role's worker to the UI), and
 * a function of the derived plan only, so peers with the same records show
 * the same tree.
 */
import { CAPABILITIES, type Capability } from '../protocol/capabilities'
import type { AcceptRecord, ApprovalMode } from '../protocol/records'
import { MAX_REDOS_PER_LEAF, MAX_VETOES_PER_GOAL } from '../protocol/limits'
import type { Step } from '../protocol/steps'
import type { DerivedGoal, DerivedPlan, DerivedSlot, GoalStatus, SlotStatus } from './derive'
import { meanScore } from './acceptance'
import { classificationReason } from './classify'
import { planOver } from './archive'
import { gapRevivable } from './gap'
import type { TaskState } from './tasks'
import type { PlanState } from './state'
import { NO_COST, usageByGoal, usageByRole, zeroUsage, type CostOf, type RoleUsage } from './usage'
import { slotFailure, taskFailure, type FailureReason } from './why'
import { goalPhase, noLeaves, type GoalPhase, type LeafCounts } from './goal-status'

export type { FailureKind, FailureReason } from './why'
export type { GoalPhase, LeafCounts } from './goal-status'

export { usageByGoal, usageByRole, zeroUsage } from './usage'
export type { CostOf, RoleUsage, UsageTotals } from './usage'

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
  /** why it failed (why.ts): its executors' error, a real capability gap, no working executor; null unless failed */
  why: FailureReason | null
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
  /** the tool group the leaf needs (since version 8); null for none */
  tool: string | null
  /** how its voters classified it, in words (plan/classify.ts classificationReason) */
  reason: string | null
  /**
   * the leaf needs a capability no live executor of the room offers (RoomView):
   * flagged at once, while the leaf waits or is open, or failed as a capability
   * gap that an executor offering it may still take (gapRevivable). null
   * otherwise, and when the room is not known.
   */
  capabilityGap: { capability: Capability } | null
  /**
   * the leaf waits for a capability that live executors of the room offer
   * but none of them can work now (its model broken or failing, its
   * spending paused: presence `healthy: false`); null otherwise, and when
   * the room is not known
   */
  noWorker: { capability: Capability } | null
  /**
   * the leaf needs a tool group no live executor of the room announces
   * (RoomView.tools), flagged as capabilityGap is; null otherwise
   */
  toolGap: { tool: string } | null
  blocked: boolean
  /** why it failed (why.ts): a failed dependency, or its leaf's; null unless a failed leaf */
  why: FailureReason | null
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
  /**
   * what every view says of the goal (goal-status.ts): the protocol's status
   * with what a person needs to read it (finished with failed parts; every
   * part settled and waiting for the roll-up; paused)
   */
  phase: GoalPhase
  /** the leaves of its subtree, at every depth: how many done, failed, and why */
  leaves: LeafCounts
  cancelled: boolean
  /** cancelled because its root's author was removed from the room before it settled */
  authorRemoved: boolean
  createdBy: string
  /** the member createdBy acts for (null without a membership): its other tabs steer the goal too */
  createdByMember: string | null
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
  /**
   * How the goal ended: 'complete' — rolled up (status 'done') and every
   * part of its subtree done; 'partial' — rolled up, but failedParts > 0
   * parts under it failed, so the result lacks them (show "finished with N
   * failed parts", never plain "done"); 'failed' — its roll-up failed;
   * 'cancelled'; null while it is not settled.
   */
  outcome: 'complete' | 'partial' | 'failed' | 'cancelled' | null
  /**
   * Parts of this goal's subtree, at every depth, that failed: leaves that
   * failed (their executors failed, a dependency failed, nobody could take
   * them), subgoals whose classification failed for good (no leaf at all),
   * and child goals that failed or were cancelled as a whole. 0 when none.
   */
  failedParts: number
  /** LLM usage by role of this goal's own subtree (its proposals, votes, classifications, child goals, leaves, roll-ups) */
  usage: RoleUsage
  /**
   * capabilities that leaves of this subtree need and no live executor of
   * the room offers (slots' capabilityGap), in CAPABILITIES order; empty
   * when none or when the room is not known (RoomView)
   */
  missingCapabilities: Capability[]
  /** tool groups that leaves of this subtree need and no live executor announces, sorted */
  missingTools: string[]
}

export interface PlanTree {
  goals: GoalView[]
  /** every goal is settled and none is held: nothing to do until a new goal (archive.ts planOver) */
  over: boolean
  /** the whole room's leaves (every root goal's) */
  progress: { leaves: number; leavesDone: number; leavesFailed: number; goals: number }
  /**
   * LLM usage by role of the whole ROOM, as the records report it: every
   * goal's, and records of goals no longer shown. A goal's own figures are
   * GoalView.usage.
   */
  roomUsage: RoleUsage
}

/**
 * What the projecting peer knows of the room beyond the records: the
 * capabilities its live executors offer now (roles/view.ts
 * offeredCapabilities). Not part of the record set, so two peers may differ
 * on it for a moment; without it, no leaf is flagged (capabilityGap null).
 */
export interface RoomView {
  capabilities: readonly Capability[]
  /** of those, what live executors that can work now offer (healthy beats); absent: all of them */
  working?: readonly Capability[]
  /** the tool groups its live executors announce (absent: not known, no leaf flagged for a tool) */
  tools?: readonly string[]
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
    why: taskFailure(task),
  }
}

/** What goalView needs besides the goal: the derived plan, each goal's usage, the room. */
interface Projection {
  plan: DerivedPlan
  usage: Map<string, RoleUsage>
  room: RoomView | null
}

function capabilityGap(goal: DerivedGoal, slot: DerivedSlot, room: RoomView | null) {
  if (!room || !slot.execute || !slot.capability) return null
  if (room.capabilities.includes(slot.capability)) return null
  const waiting = slot.status === 'open' || slot.status === 'waiting'
  return waiting || gapRevivable(goal, slot) ? { capability: slot.capability } : null
}

function noWorker(slot: DerivedSlot, room: RoomView | null) {
  if (!room?.working || !slot.execute || !slot.capability) return null
  if (slot.status !== 'open' && slot.status !== 'waiting') return null
  const offered = room.capabilities.includes(slot.capability)
  return offered && !room.working.includes(slot.capability) ? { capability: slot.capability } : null
}

function toolGap(goal: DerivedGoal, slot: DerivedSlot, room: RoomView | null) {
  if (!room?.tools || !slot.execute || !slot.tool) return null
  if (room.tools.includes(slot.tool)) return null
  const waiting = slot.status === 'open' || slot.status === 'waiting'
  return waiting || gapRevivable(goal, slot) ? { tool: slot.tool } : null
}

function slotView(goal: DerivedGoal, slot: DerivedSlot, at: Projection): SlotView {
  const child = slot.child ? at.plan.goals.get(slot.child) : undefined
  return {
    index: slot.index,
    text: slot.text,
    dependsOn: slot.dependsOn,
    status: slot.status,
    nodeId: slot.id,
    atomic: slot.classification ? slot.classification.atomic : null,
    capped: slot.classification?.capped ?? false,
    capability: slot.capability,
    tool: slot.tool,
    reason: slot.classification ? classificationReason(slot.classification) : null,
    capabilityGap: capabilityGap(goal, slot, at.room),
    noWorker: noWorker(slot, at.room),
    toolGap: toolGap(goal, slot, at.room),
    blocked: slot.blocked,
    why: slotFailure(goal, slot),
    leaf: slot.execute ? taskView(slot.execute) : null,
    superseded: slot.superseded.map((step) => ({
      task: taskView(step.task),
      note: step.redo.note,
    })),
    redosLeft: MAX_REDOS_PER_LEAF - slot.superseded.length,
    goal: child ? goalView(child, at) : null,
  }
}

/** Failed parts of a goal's subtree (GoalView.failedParts), from its slots' views. */
function countFailedParts(slots: readonly SlotView[]): number {
  let failed = 0
  for (const slot of slots) {
    const child = slot.goal
    if (child) {
      const whole = child.status === 'failed' || child.status === 'cancelled'
      failed += child.failedParts + (whole && child.failedParts === 0 ? 1 : 0)
    } else if (slot.status === 'failed') failed++
  }
  return failed
}

function outcomeOf(status: GoalStatus, failedParts: number): GoalView['outcome'] {
  if (status === 'done') return failedParts === 0 ? 'complete' : 'partial'
  return status === 'failed' || status === 'cancelled' ? status : null
}

function missing(slots: readonly SlotView[]): Capability[] {
  const needed = new Set<Capability>()
  for (const slot of slots) {
    if (slot.capabilityGap) needed.add(slot.capabilityGap.capability)
    for (const capability of slot.goal?.missingCapabilities ?? []) needed.add(capability)
  }
  return CAPABILITIES.filter((capability) => needed.has(capability))
}

/** The leaves of a goal's subtree, from its slots' views. */
function countLeaves(slots: readonly SlotView[]): LeafCounts {
  const counts = noLeaves()
  for (const slot of slots) {
    const below = slot.goal?.leaves
    if (below) {
      counts.total += below.total
      counts.done += below.done
      counts.failed += below.failed
      for (const kind of Object.keys(counts.failedBy) as (keyof LeafCounts['failedBy'])[])
        counts.failedBy[kind] += below.failedBy[kind]
      continue
    }
    if (slot.atomic !== true) continue
    counts.total++
    if (slot.status === 'done') counts.done++
    else if (slot.status === 'failed') {
      counts.failed++
      if (slot.why) counts.failedBy[slot.why.kind]++
    }
  }
  return counts
}

/** The tool groups leaves of a goal's subtree need and no live executor announces. */
function missingTools(slots: readonly SlotView[]): string[] {
  const needed = new Set<string>()
  for (const slot of slots) {
    if (slot.toolGap) needed.add(slot.toolGap.tool)
    for (const tool of slot.goal?.missingTools ?? []) needed.add(tool)
  }
  return [...needed].sort()
}

function goalView(goal: DerivedGoal, at: Projection): GoalView {
  const slots = goal.slots.map((slot) => slotView(goal, slot, at))
  const failedParts = countFailedParts(slots)
  return {
    id: goal.id,
    text: goal.text,
    createdAt: goal.depth === 0 ? goal.createdAt : null,
    depth: goal.depth,
    status: goal.status,
    phase: goalPhase(goal, failedParts),
    leaves: countLeaves(slots),
    cancelled: goal.cancelled,
    authorRemoved: goal.authorRemoved,
    createdBy: goal.createdBy,
    createdByMember: goal.createdByMember,
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
    slots,
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
    outcome: outcomeOf(goal.status, failedParts),
    failedParts,
    usage: at.usage.get(goal.id) ?? zeroRoleUsage(),
    missingCapabilities: missing(slots),
    missingTools: missingTools(slots),
  }
}

/** Usage by role of a goal or room that has made no call. */
export function zeroRoleUsage(): RoleUsage {
  return { decomposer: zeroUsage(), scorer: zeroUsage(), executor: zeroUsage() }
}

/**
 * The tree of `plan` (derived from `state`). `room`: what this peer hears of
 * the room's executors, for capabilityGap; without it no leaf is flagged and
 * the tree is a function of the records alone (the same on every peer).
 */
export function projectTree(
  plan: DerivedPlan,
  state: PlanState,
  costUsd: CostOf = NO_COST,
  room: RoomView | null = null,
): PlanTree {
  const at: Projection = { plan, usage: usageByGoal(plan, state, costUsd), room }
  const goals = plan.roots.map((id) => goalView(plan.goals.get(id)!, at))
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
    roomUsage: usageByRole(state, costUsd),
  }
}
