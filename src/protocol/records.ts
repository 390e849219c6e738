/**
 * Domain types of the protocol (inferred from the zod schemas) and builders
 * that stamp a record with its content id.
 */
import type { z } from 'zod'
import { canonicalJsonWithout } from './canonical'
import { canonicalId } from './hash'
import {
  PROTOCOL_VERSION,
  type acceptSchema,
  type cancelSchema,
  type claimSchema,
  type failureSchema,
  type goalSchema,
  type nodeSchema,
  type presenceSchema,
  type proposalSchema,
  type reannounceSchema,
  type resultSchema,
  type scoreSchema,
  type usageSchema,
  type steerSchema,
  type verdictSchema,
  type redoSchema,
  type approvalModeSchema,
} from './schemas'

export type GoalRecord = z.infer<typeof goalSchema>
export type ProposalRecord = z.infer<typeof proposalSchema>
export type ScoreRecord = z.infer<typeof scoreSchema>
export type ClaimRecord = z.infer<typeof claimSchema>
export type AcceptRecord = z.infer<typeof acceptSchema>
export type NodeRecord = z.infer<typeof nodeSchema>
export type ResultRecord = z.infer<typeof resultSchema>
export type FailureRecord = z.infer<typeof failureSchema>
export type ReannounceRecord = z.infer<typeof reannounceSchema>
export type CancelRecord = z.infer<typeof cancelSchema>
export type SteerRecord = z.infer<typeof steerSchema>
export type VerdictRecord = z.infer<typeof verdictSchema>
export type RedoRecord = z.infer<typeof redoSchema>
export type ApprovalMode = z.infer<typeof approvalModeSchema>
export type Presence = z.infer<typeof presenceSchema>
export type Usage = z.infer<typeof usageSchema>

export type PlanRecord =
  | GoalRecord
  | ProposalRecord
  | ScoreRecord
  | ClaimRecord
  | AcceptRecord
  | NodeRecord
  | ResultRecord
  | FailureRecord
  | ReannounceRecord
  | CancelRecord
  | SteerRecord
  | VerdictRecord
  | RedoRecord
export type WireRecord = PlanRecord | Presence
export type RecordKind = WireRecord['kind']
export type TaskType = ClaimRecord['taskType']
export type Role = Presence['role']

/** A record's fields before it is stamped: everything but v and id. */
export type Draft<R extends WireRecord> = Omit<R, 'v' | 'id'>

/**
 * A record's canonical JSON and its content id (the hash of every field
 * except `id` itself), from one encoding of its fields.
 */
export function canonicalRecord(record: Omit<WireRecord, 'id'> | WireRecord): {
  canonical: string
  id: string
} {
  const { whole, without } = canonicalJsonWithout(record, 'id')
  return { canonical: whole, id: canonicalId(without) }
}

/** The content id of a record: the hash of every field except `id` itself. */
export function recordId(record: Omit<WireRecord, 'id'> | WireRecord): string {
  return canonicalRecord(record).id
}

/** Stamp a draft with the protocol version and its content id. */
export function stamp<R extends WireRecord>(draft: Draft<R>): R {
  const body = { ...draft, v: PROTOCOL_VERSION } as Omit<R, 'id'>
  return { ...body, id: recordId(body) } as R
}

/** A new root goal, as a person submits it. */
export function newGoal(
  room: string,
  from: string,
  text: string,
  createdAt: number,
  maxDepth: number,
  approve: ApprovalMode = 'none',
): GoalRecord {
  return stamp<GoalRecord>({
    kind: 'goal',
    room,
    from,
    text: text.trim(),
    createdAt,
    maxDepth,
    // absent when not asked, so a plain goal's bytes are as before
    ...(approve === 'none' ? {} : { approve }),
  })
}

/** A cancellation of a goal and everything under it. */
export function newCancel(
  room: string,
  from: string,
  goal: string,
  at: number,
  reason = '',
): CancelRecord {
  return stamp<CancelRecord>({ kind: 'cancel', room, from, goal, reason: reason.trim(), at })
}

/** The author's settings of a root goal: paused, and which splits wait for approval. */
export function newSteer(
  room: string,
  from: string,
  goal: string,
  paused: boolean,
  approve: ApprovalMode,
  at: number,
): SteerRecord {
  return stamp<SteerRecord>({ kind: 'steer', room, from, goal, paused, approve, at })
}

/** The author's approval (approve) or veto of the split accepted for `goal`. */
export function newVerdict(
  room: string,
  from: string,
  fields: { goal: string; proposal: string; approve: boolean; note?: string; retire?: string[] },
  at: number,
): VerdictRecord {
  const retire = fields.approve
    ? []
    : [...new Set([fields.proposal, ...(fields.retire ?? [])])].sort()
  return stamp<VerdictRecord>({
    kind: 'verdict',
    room,
    from,
    goal: fields.goal,
    proposal: fields.proposal,
    approve: fields.approve,
    note: (fields.note ?? '').trim(),
    retire,
    at,
  })
}

/** The author sends the leaf of execute task `task` back with `note`. */
export function newRedo(
  room: string,
  from: string,
  task: string,
  note: string,
  at: number,
): RedoRecord {
  return stamp<RedoRecord>({ kind: 'redo', room, from, task, note: note.trim(), at })
}
