/**
 * A hand-made plan for derivation tests: one root goal, a proposal of
 * `subgoals` accepted by quorum on two votes (whose judgements classify its
 * subgoals: plan/classify.ts), its decide task claimed by a scorer; and
 * builders for the records that claim and finish its tasks.
 */
import { taskId } from '../protocol/ids'
import {
  stamp,
  type AcceptRecord,
  type ClaimRecord,
  type Draft,
  type FailureRecord,
  type GoalRecord,
  type Judgement,
  type ProposalRecord,
  type ResultRecord,
  type ScoreRecord,
  type TaskType,
  type Usage,
  type WireRecord,
} from '../protocol/records'
import type { Capability } from '../protocol/capabilities'
import { PlanState } from './state'

export const ROOM = 'sim'
/** PeerIds of the test's peers (base58btc, never signed: derivation does not check signatures) */
export const peer = (name: string) => `12D3KooW${name.padEnd(44, '1')}`
export const AUTHOR = peer('Author')
export const SCORERS = [peer('ScorerA'), peer('ScorerB'), peer('ScorerC')] as const
export const EXECUTOR = peer('Executor')

export const usage = (inputTokens = 10, outputTokens = 5): Usage => ({
  provider: 'sim',
  model: 'sim-1',
  inputTokens,
  outputTokens,
  offline: true,
})

/** Stamp a record of this room (typed by the caller: the fields are the test's own). */
function make<R extends WireRecord>(draft: Omit<Draft<R>, 'room'>): R {
  return stamp<R>({ room: ROOM, ...draft } as Draft<R>)
}

export function claimOf(from: string, type: TaskType, subject: string, epoch: number) {
  return make<ClaimRecord>({
    kind: 'claim',
    from,
    task: taskId(type, subject),
    taskType: type,
    subject,
    epoch,
    at: 1,
  })
}

/** A failure of `task` by its holder in `epoch` (gives the task back). */
export function taskFailure(
  from: string,
  task: string,
  epoch: number,
  stage: 'execute' | 'rollup',
) {
  return make<FailureRecord>({
    kind: 'failure',
    from,
    subject: task,
    stage,
    epoch,
    index: -1,
    errorKind: 'output',
    detail: "the model's replies did not pass validation",
    usage: usage(100, 4000),
  })
}

/** A score by `from` of `proposal`, with its judgement of each subgoal. */
export function scoreOf(
  from: string,
  goal: string,
  proposal: string,
  judgements: Judgement[],
  score = 0.9,
) {
  return make<ScoreRecord>({
    kind: 'score',
    from,
    goal,
    proposal,
    score,
    notes: 'good',
    judgements,
    usage: usage(50, 20),
  })
}

/** Every subgoal atomic, written work: what the two votes of acceptedSplit judge by default. */
export const allAtomic = (subgoals: number, capability: Capability = 'can_write_text') =>
  Array.from({ length: subgoals }, () => ({ atomic: true, capability }))

export interface Split {
  plan: PlanState
  goal: GoalRecord
  proposal: ProposalRecord
  decide: string
  /** the two votes the accept cites (SCORERS[0], SCORERS[1]) */
  scores: ScoreRecord[]
  result(from: string, task: string, epoch: number, output?: string): ResultRecord
}

/**
 * A root goal split into `subgoals` parts, accepted on two votes whose
 * judgements are `judged` (one list per voter; default: every subgoal
 * atomic, written work), its decide task held by SCORERS[0] in epoch 0;
 * `dependsOn[i]`: the earlier parts part i waits for (default none).
 */
export function acceptedSplit(
  subgoals = 3,
  maxDepth = 1,
  judged: Judgement[][] = [allAtomic(subgoals), allAtomic(subgoals)],
  dependsOn: number[][] = [],
): Split {
  const goal = make<GoalRecord>({
    kind: 'goal',
    from: AUTHOR,
    text: 'Plan a trip',
    createdAt: 1,
    maxDepth,
  })
  const proposal = make<ProposalRecord>({
    kind: 'proposal',
    from: peer('Decomposer'),
    goal: goal.id,
    subgoals: Array.from({ length: subgoals }, (_, i) => ({
      text: `part ${i}`,
      dependsOn: dependsOn[i] ?? [],
    })),
    rationale: 'parts',
    usage: usage(200, 100),
  })
  const scores = judged.map((judgements, i) =>
    scoreOf(SCORERS[i]!, goal.id, proposal.id, judgements),
  )
  const claim = claimOf(SCORERS[0], 'decide', goal.id, 0)
  const accept = make<AcceptRecord>({
    kind: 'accept',
    from: SCORERS[0],
    goal: goal.id,
    proposal: proposal.id,
    basis: 'quorum',
    votes: scores.map((s) => s.id),
    epoch: 0,
  })
  const plan = new PlanState()
  for (const record of [goal, proposal, ...scores, claim, accept]) plan.add(record)
  return {
    plan,
    goal,
    proposal,
    decide: claim.task,
    scores,
    result: (from, task, epoch, output = 'done') =>
      make<ResultRecord>({ kind: 'result', from, task, epoch, output, usage: usage(300, 200) }),
  }
}
