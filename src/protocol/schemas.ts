/**
 * zod schemas for every record on the wire. They sit beside the protocol and
 * are the only way bytes become domain objects (see codec.ts). Each schema
 * is strict: unknown fields are rejected, so the canonical encoding of a
 * parsed record is exactly the bytes that were signed.
 */
import { z } from './zod'
import { CAPABILITIES } from './capabilities'
import { ID_HEX_LENGTH } from './hash'
import * as L from './limits'
import { MAX_KEEPALIVE_MS, PRESENCE_INTERVAL_MS } from './rules'
import { stepsSchema } from './steps'
import { toolGroupNameSchema, toolGroupsSchema } from './tool-groups'
import { memberSchemas } from './member-schemas'

/**
 * 4: the goal's author steers its plan (issue 27): `steer`, `verdict` and
 * `redo` records, and goals may ask for approval. A version-3 peer would
 * reject these kinds and derive a plan that ignores vetoes, redos and pauses,
 * so the record version, the gossip topics and the sync protocol id moved
 * together (as for 3: results with `steps`, issue 24).
 * 5: nothing is silently dropped (issues 43, 44): a classify failure no
 * longer settles its subgoal (it is classified again at the decide task's
 * next epoch, failed only after MAX_CLASSIFY_ROUNDS rounds), and a leaf
 * failed as a capability gap may still be claimed. No field changed, but a
 * version-4 peer would roll up goals whose subgoals version-5 peers still
 * classify, so the record version, topics and sync protocol id moved too.
 * 6 (protocol version 7): a score carries its scorer's judgement of each
 * subgoal and the accepted split is classified by its voters; the `node`
 * kind and the `classify` failure stage are gone (issue 46).
 * 7 (protocol version 8): a rekey lists what of the members it removes
 * stays (`kept`), and a removed member's other records count for nothing
 * (issue 55): a version-7 peer would reject such rekeys and count a removed
 * member's later records.
 */
export const PROTOCOL_VERSION = 7

export const idSchema = z.string().regex(new RegExp(`^[0-9a-f]{${ID_HEX_LENGTH}}$`), 'not an id')
/** Only Ed25519 PeerIds: their public key is inside, so any receiver can check a signature. */
export const peerIdSchema = z
  .string()
  .regex(/^12D3KooW[1-9A-HJ-NP-Za-km-z]{44}$/, 'not an Ed25519 PeerId')
export const roomSchema = z
  .string()
  .min(1)
  .max(L.MAX_ROOM)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'room names are lowercase letters, digits and dashes')
/** Milliseconds since the epoch, as the sender's clock tells it (never trusted for ordering). */
const timeSchema = z.number().int().min(0).max(8.64e15)
const epochSchema = z.number().int().min(0).max(L.MAX_EPOCH)
const text = (max: number) => z.string().max(max)
/** Non-empty text with no surrounding white space (a transform would break the canonical bytes). */
const nonEmpty = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine(
      (value) => value.trim() === value && value.length > 0,
      'text must be trimmed and non-empty',
    )

export const capabilitySchema = z.enum(CAPABILITIES as [string, ...string[]]) as z.ZodType<
  (typeof CAPABILITIES)[number]
>
export const roleSchema = z.enum(['decomposer', 'scorer', 'executor', 'observer'])
export const taskTypeSchema = z.enum(['decide', 'execute', 'rollup'])
/**
 * Since version 7 there is no `classify` stage: the accepted split's
 * subgoals are classified by its voters' judgements (scoreSchema), with no
 * call of its own that could fail.
 */
export const failureStageSchema = z.enum([
  'decompose',
  'score',
  'execute',
  'rollup',
  'capability-gap',
])

/**
 * Why a failure happened, as a kind, never as the provider's text (it can
 * echo a masked key or a prompt): 'auth' a rejected key, 'unreachable' no
 * answer, 'rate-limit', 'output' replies that never passed the schema,
 * 'other' anything else, 'none' no LLM call (a capability gap).
 */
export const failureErrorSchema = z.enum([
  'auth',
  'unreachable',
  'rate-limit',
  'output',
  'other',
  'none',
])

export const usageSchema = z.strictObject({
  provider: text(40),
  model: text(L.MAX_MODEL_LABEL),
  inputTokens: z.number().int().min(0).max(1e9),
  outputTokens: z.number().int().min(0).max(1e9),
  offline: z.boolean(),
})

/** Fields every record carries. `id` is the content id of all the other fields. */
const header = {
  v: z.literal(PROTOCOL_VERSION),
  id: idSchema,
  room: roomSchema,
  from: peerIdSchema,
}

/** Which splits of a goal wait for its author's approval. */
export const approvalModeSchema = z.enum(['none', 'root', 'every'])

export const goalSchema = z.strictObject({
  ...header,
  kind: z.literal('goal'),
  text: nonEmpty(L.MAX_GOAL_TEXT),
  createdAt: timeSchema,
  maxDepth: z.number().int().min(1).max(L.MAX_DEPTH_LIMIT),
  /** ask the author before a split is accepted: of the root only, or at every level (absent: never) */
  approve: approvalModeSchema.optional(),
})

export const subgoalSchema = z.strictObject({
  text: nonEmpty(L.MAX_SUBGOAL_TEXT),
  dependsOn: z
    .array(
      z
        .number()
        .int()
        .min(0)
        .max(L.MAX_SUBGOALS - 1),
    )
    .max(L.MAX_SUBGOALS - 1),
})

export const proposalSchema = z
  .strictObject({
    ...header,
    kind: z.literal('proposal'),
    goal: idSchema,
    subgoals: z.array(subgoalSchema).min(L.MIN_SUBGOALS).max(L.MAX_SUBGOALS),
    rationale: text(L.MAX_RATIONALE),
    usage: usageSchema,
  })
  .superRefine((proposal, ctx) => {
    proposal.subgoals.forEach((subgoal, index) => {
      const seen = new Set<number>()
      for (const dep of subgoal.dependsOn) {
        // only earlier siblings: the dependency graph is acyclic by construction
        if (dep >= index)
          ctx.addIssue({
            code: 'custom',
            message: `subgoal ${index} depends on ${dep}, not an earlier sibling`,
          })
        if (seen.has(dep))
          ctx.addIssue({ code: 'custom', message: `subgoal ${index} lists ${dep} twice` })
        seen.add(dep)
      }
    })
  })

/**
 * A scorer's judgement of one subgoal of the split it scores (since version
 * 7): one concrete deliverable (`atomic`) or still to be split, and what
 * producing it needs. The accepted split's subgoals are classified by its
 * voters' judgements (docs/PROTOCOL.md §5.1).
 */
export const judgementSchema = z.strictObject({
  atomic: z.boolean(),
  capability: capabilitySchema,
  /**
   * since version 8: the tool group (tool-groups.ts) producing it needs;
   * absent when none. Only an executor announcing that group takes the leaf.
   */
  tool: toolGroupNameSchema.optional(),
})

export const scoreSchema = z.strictObject({
  ...header,
  kind: z.literal('score'),
  goal: idSchema,
  proposal: idSchema,
  score: z.number().min(0).max(1),
  notes: text(L.MAX_NOTES),
  /** one per subgoal of the proposal, in order (a vote with another count does not count) */
  judgements: z.array(judgementSchema).min(L.MIN_SUBGOALS).max(L.MAX_SUBGOALS),
  usage: usageSchema,
})

export const claimSchema = z.strictObject({
  ...header,
  kind: z.literal('claim'),
  task: idSchema,
  taskType: taskTypeSchema,
  subject: idSchema,
  epoch: epochSchema,
  at: timeSchema,
})

export const acceptSchema = z.strictObject({
  ...header,
  kind: z.literal('accept'),
  goal: idSchema,
  proposal: idSchema,
  basis: z.enum(['quorum', 'settled', 'deadline']),
  votes: z.array(idSchema).min(2).max(L.MAX_VOTES),
  epoch: epochSchema,
})

export const resultSchema = z.strictObject({
  ...header,
  kind: z.literal('result'),
  task: idSchema,
  epoch: epochSchema,
  output: nonEmpty(L.MAX_OUTPUT),
  usage: usageSchema,
  /** what the executor ran and searched on its way (absent when no tool ran; never empty) */
  steps: stepsSchema.optional(),
})

export const failureSchema = z.strictObject({
  ...header,
  kind: z.literal('failure'),
  /** a task id (execute, rollup, capability-gap), a goal id (decompose) or a proposal id (score) */
  subject: idSchema,
  stage: failureStageSchema,
  /**
   * for task failures: the epoch the failing holder claimed; for a
   * capability gap: the unclaimed epoch it declares failed
   */
  epoch: epochSchema,
  /** -1 (before version 7, a classify failure's subgoal): receivers accept -1..5, no rule reads it */
  index: z
    .number()
    .int()
    .min(-1)
    .max(L.MAX_SUBGOALS - 1),
  errorKind: failureErrorSchema,
  /** a fixed message for the error kind, written by the protocol, not by the provider */
  detail: text(L.MAX_DETAIL),
  usage: usageSchema.nullable(),
})

export const reannounceSchema = z.strictObject({
  ...header,
  kind: z.literal('reannounce'),
  task: idSchema,
  /** the unclaimed epoch being re-announced */
  epoch: epochSchema,
  at: timeSchema,
})

export const cancelSchema = z.strictObject({
  ...header,
  kind: z.literal('cancel'),
  goal: idSchema,
  reason: text(L.MAX_DETAIL),
  at: timeSchema,
})

/**
 * The author's settings of a root goal, later than its goal record: paused
 * (no new claims) and which splits wait for approval. Of the author's steers
 * of a goal, the latest by `at` (then the highest id) counts.
 */
export const steerSchema = z.strictObject({
  ...header,
  kind: z.literal('steer'),
  /** a root goal id */
  goal: idSchema,
  paused: z.boolean(),
  approve: approvalModeSchema,
  at: timeSchema,
})

/**
 * The author approves or vetoes the split accepted for a goal (any depth). A
 * veto sends the goal back to the decomposers: the proposals it lists (the
 * vetoed one among them) no longer count, and `note` goes into their prompt.
 */
export const verdictSchema = z
  .strictObject({
    ...header,
    kind: z.literal('verdict'),
    goal: idSchema,
    /** the accepted proposal this verdict is about */
    proposal: idSchema,
    approve: z.boolean(),
    note: text(L.MAX_NOTE),
    /** for a veto: every proposal of the goal the author saw, sent back with it; empty for an approval */
    retire: z.array(idSchema).max(L.MAX_RETIRED_PROPOSALS),
    at: timeSchema,
  })
  .superRefine((verdict, ctx) => {
    if (verdict.approve && verdict.retire.length > 0)
      ctx.addIssue({ code: 'custom', message: 'an approval retires nothing' })
    if (!verdict.approve && !verdict.retire.includes(verdict.proposal))
      ctx.addIssue({ code: 'custom', message: 'a veto retires the proposal it vetoes' })
  })

/**
 * The author sends a done or failed leaf back with a note: the leaf's next
 * execute task has this record's id as its subject (docs/PROTOCOL.md §5.12).
 */
export const redoSchema = z.strictObject({
  ...header,
  kind: z.literal('redo'),
  /** the execute task redone (the leaf's current one, done or failed) */
  task: idSchema,
  note: nonEmpty(L.MAX_NOTE),
  at: timeSchema,
})

export { memberIdSchema } from './member-schemas'
/** bind, admit, rekey (since version 7): member-schemas.ts */
export const { bindSchema, admitSchema, rekeyBoxSchema, rekeySchema } = memberSchemas({
  header,
  idSchema,
  timeSchema,
  nonEmpty,
})

export const planRecordSchema = z.discriminatedUnion('kind', [
  goalSchema,
  proposalSchema,
  scoreSchema,
  claimSchema,
  acceptSchema,
  resultSchema,
  failureSchema,
  reannounceSchema,
  cancelSchema,
  steerSchema,
  verdictSchema,
  redoSchema,
  bindSchema,
  admitSchema,
  rekeySchema,
])

/**
 * Presence: a peer's periodic beat on the presence topic. Not plan state:
 * it is not stored or synced. It says who is alive with which role and
 * capabilities, and renews the leases on the tasks the peer is working on.
 */
export const presenceSchema = z
  .strictObject({
    ...header,
    kind: z.literal('presence'),
    role: roleSchema,
    /** what an executor offers: empty for every other role (refined below) */
    capabilities: z.array(capabilitySchema).max(3),
    /** since version 8: the tool groups an executor's person turned on (absent: none; refined below) */
    tools: toolGroupsSchema.optional(),
    holding: z.array(idSchema).max(L.MAX_HOLDING),
    load: z.number().int().min(0).max(1_000),
    capacity: z.number().int().min(0).max(1_000),
    /** false while its LLM provider fails (bad key, unreachable): others route work around it */
    healthy: z.boolean(),
    model: text(L.MAX_MODEL_LABEL),
    offline: z.boolean(),
    /** start time of this run of the peer and a counter: (boot, seq) only grows, so replays are spotted */
    boot: timeSchema,
    seq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    /** the most ms until this peer's next beat: receivers take it for gone after three such gaps unheard */
    every: z.number().int().min(PRESENCE_INTERVAL_MS).max(MAX_KEEPALIVE_MS),
  })
  // one rule for every receiver (PROTOCOL §3.3): a beat some peers kept and
  // others dropped would give them different live peers, so different ranks
  .refine((beat) => beat.role === 'executor' || beat.capabilities.length === 0, {
    message: 'only an executor lists capabilities',
    path: ['capabilities'],
  })
  .refine((beat) => beat.role === 'executor' || beat.tools === undefined, {
    message: 'only an executor lists tool groups',
    path: ['tools'],
  })

export const wireRecordSchema = z.discriminatedUnion('kind', [
  goalSchema,
  proposalSchema,
  scoreSchema,
  claimSchema,
  acceptSchema,
  resultSchema,
  failureSchema,
  reannounceSchema,
  cancelSchema,
  steerSchema,
  verdictSchema,
  redoSchema,
  bindSchema,
  admitSchema,
  rekeySchema,
  presenceSchema,
])
