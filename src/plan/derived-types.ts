/**
 * The shapes of the derived plan (derive.ts computes them): goals with
 * their splits, slots and tasks, as every peer derives them from the record
 * set.
 */
import type {
  AcceptRecord,
  ApprovalMode,
  ProposalRecord,
  RedoRecord,
  ResultRecord,
  ScoreRecord,
  VerdictRecord,
} from '../protocol/records'
import type { Capability } from '../protocol/capabilities'
import type { Classification } from './classify'
import type { TaskState } from './tasks'

export type GoalStatus =
  | 'awaiting-proposals'
  | 'scoring'
  | 'awaiting-approval'
  | 'accepted'
  | 'done'
  | 'failed'
  | 'cancelled'

export interface DerivedGoal {
  id: string
  text: string
  depth: number
  maxDepth: number
  root: string
  /** the goal and subgoal this goal was split from; null for a root goal */
  parent: { goal: string; index: number } | null
  /** goal texts from the root down to this goal */
  path: string[]
  createdBy: string
  /** the member the root's author acts for, when derived with a membership; else null */
  createdByMember: string | null
  /** the root goal's creation time (its submitter's clock) */
  createdAt: number
  cancelled: boolean
  /**
   * cancelled because the root's author was removed from the room before
   * its tree settled (since protocol version 8): no peer works on it any more
   */
  authorRemoved: boolean
  /** the root's author paused the goal: no new claims or proposals under it */
  paused: boolean
  /** which splits wait for the author (the root's setting) */
  approvalMode: ApprovalMode
  /**
   * 'waiting': the accepted split waits for the author's approval (its
   * subgoals are classified, by its voters, but nothing under them runs); 'approved': the
   * author approved it; 'none': no approval asked for this goal
   */
  approval: 'none' | 'waiting' | 'approved'
  /** the author's counted vetoes, oldest round first, with the splits they sent back */
  vetoes: { verdict: VerdictRecord; proposal: ProposalRecord | null }[]
  /** proposals of the goal that vetoes sent back (not counted; shown as such) */
  retired: ProposalRecord[]
  /** live proposals (not sent back by a veto) */
  proposals: ProposalRecord[]
  /** per proposal id: one vote per scorer (its lowest-id score), sorted by scorer */
  votes: Map<string, ScoreRecord[]>
  decide: TaskState
  accept: AcceptRecord | null
  accepted: ProposalRecord | null
  /** one per subgoal of the accepted proposal */
  slots: DerivedSlot[]
  rollup: TaskState
  /** the roll-up result a redo below made stale, if any (the previous generation's) */
  supersededRollup: ResultRecord | null
  /** ids of the counted redos and vetoes in this goal's subtree (they name its roll-up task) */
  redos: string[]
  status: GoalStatus
}

export type SlotStatus = 'approval' | 'waiting' | 'open' | 'claimed' | 'active' | 'done' | 'failed'

export interface DerivedSlot {
  goal: string
  index: number
  text: string
  dependsOn: number[]
  /** by the accepted split's voters (classify.ts); null while no split is accepted */
  classification: Classification | null
  /** node id; for a composite node also its child goal's id */
  id: string | null
  atomic: boolean
  capability: Capability | null
  /** the tool group the leaf needs, by its voters (since version 8); null for none */
  tool: string | null
  /** atomic nodes only: the current execute task (the last of its redos) */
  execute: TaskState | null
  /** atomic nodes only: earlier execute tasks the author sent back, oldest first */
  superseded: { task: TaskState; redo: RedoRecord }[]
  /** composite nodes only */
  child: string | null
  /** a dependency failed: this subgoal cannot run */
  blocked: boolean
  status: SlotStatus
  /** the output that settles this subgoal (leaf result or child roll-up) */
  output: string | null
}

export interface DerivedPlan {
  version: number
  goals: Map<string, DerivedGoal>
  /** root goal ids that count, oldest first */
  roots: string[]
  /** root goal ids held by the per-author limits (goal-limits.ts): not derived */
  held: string[]
  /** held root goal id → its author */
  heldBy: Map<string, string>
  /** every exclusive task that exists, by task id */
  tasks: Map<string, TaskState>
  /** roll-up task id → its goal (a redo below gives a goal a roll-up task with another subject) */
  rollups: Map<string, DerivedGoal>
  /** execute task id → its leaf */
  leaves: Map<string, { goal: DerivedGoal; slot: DerivedSlot }>
  /** per peer: the tasks it holds now (claimed in the current epoch, not finished or given back) */
  holdings: Map<string, number>
}
