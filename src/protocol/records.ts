/**
 * Domain types of the protocol (inferred from the zod schemas) and builders
 * that stamp a record with its content id.
 */
import type { z } from './zod'
import { canonicalJsonWithout } from './canonical'
import { canonicalId } from './hash'
import {
  PROTOCOL_VERSION,
  type acceptSchema,
  type cancelSchema,
  type claimSchema,
  type failureSchema,
  type goalSchema,
  type presenceSchema,
  type proposalSchema,
  type reannounceSchema,
  type resultSchema,
  type scoreSchema,
  type judgementSchema,
  type usageSchema,
  type steerSchema,
  type verdictSchema,
  type redoSchema,
  type approvalModeSchema,
  type bindSchema,
  type admitSchema,
  type rekeySchema,
} from './schemas'
import { signBind, type MemberKey, type RekeyBox } from './member-key'

export type GoalRecord = z.infer<typeof goalSchema>
export type ProposalRecord = z.infer<typeof proposalSchema>
export type ScoreRecord = z.infer<typeof scoreSchema>
/** A scorer's judgement of one subgoal (since protocol version 7). */
export type Judgement = z.infer<typeof judgementSchema>
export type ClaimRecord = z.infer<typeof claimSchema>
export type AcceptRecord = z.infer<typeof acceptSchema>
export type ResultRecord = z.infer<typeof resultSchema>
export type FailureRecord = z.infer<typeof failureSchema>
export type ReannounceRecord = z.infer<typeof reannounceSchema>
export type CancelRecord = z.infer<typeof cancelSchema>
export type SteerRecord = z.infer<typeof steerSchema>
export type VerdictRecord = z.infer<typeof verdictSchema>
export type RedoRecord = z.infer<typeof redoSchema>
export type ApprovalMode = z.infer<typeof approvalModeSchema>
/** Members (since version 7): a PeerId acts for a member, an owner admits one, an owner rekeys. */
export type BindRecord = z.infer<typeof bindSchema>
export type AdmitRecord = z.infer<typeof admitSchema>
export type RekeyRecord = z.infer<typeof rekeySchema>
export type MemberRecord = BindRecord | AdmitRecord | RekeyRecord
export type Presence = z.infer<typeof presenceSchema>
export type Usage = z.infer<typeof usageSchema>

export type PlanRecord =
  | GoalRecord
  | ProposalRecord
  | ScoreRecord
  | ClaimRecord
  | AcceptRecord
  | ResultRecord
  | FailureRecord
  | ReannounceRecord
  | CancelRecord
  | SteerRecord
  | VerdictRecord
  | RedoRecord
  | BindRecord
  | AdmitRecord
  | RekeyRecord
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

/** This PeerId (`from`) acts for `member` in room `room` (the stable id): signed by the member key. */
export function newBind(room: string, from: string, member: MemberKey): BindRecord {
  return stamp<BindRecord>({
    kind: 'bind',
    room,
    from,
    member: member.id,
    sig: signBind(member, room, from),
  })
}

/** An owner's admission of a person: member id, box key, name (trimmed), co-owner or not. */
export function newAdmit(
  room: string,
  from: string,
  fields: { member: string; box: string; name: string; coOwner: boolean },
  at: number,
): AdmitRecord {
  return stamp<AdmitRecord>({
    kind: 'admit',
    room,
    from,
    member: fields.member,
    box: fields.box,
    name: fields.name.trim(),
    coOwner: fields.coOwner,
    at,
  })
}

/**
 * An owner's move to epoch `epoch` (after rekey `prev`, null for epoch 1):
 * `removed` out, `boxes` from member-key.ts's sealEpochSecret under `eph`,
 * `kept` what of the removed members' records keeps counting (keptIds).
 */
export function newRekey(
  room: string,
  from: string,
  fields: {
    epoch: number
    prev: string | null
    removed: readonly string[]
    reason: 'remove' | 'reset'
    eph: string
    boxes: readonly RekeyBox[]
    /** ids of the removed members' records that keep counting (any order; sorted here) */
    kept: readonly string[]
  },
  at: number,
): RekeyRecord {
  return stamp<RekeyRecord>({
    kind: 'rekey',
    room,
    from,
    epoch: fields.epoch,
    prev: fields.prev,
    removed: [...new Set(fields.removed)].sort(),
    reason: fields.reason,
    eph: fields.eph,
    boxes: [...fields.boxes].sort((a, b) => (a.member < b.member ? -1 : 1)),
    kept: [...new Set(fields.kept)].sort(),
    at,
  })
}
