/**
 * Exclusive tasks: work that exactly one peer should do at a time (decide a
 * goal, execute a leaf, roll up a goal). Claims form epochs: a first claim is
 * epoch 0, a takeover or a retry after a failure claims the next epoch.
 *
 * Every rule here is a pure function of the record set:
 * - the current epoch is the highest claimed; its holder is the claimant with
 *   the highest rendezvous weight for the task (so clocks never decide);
 *   once the task has a counted result, its holder is that result's author;
 * - an output (result, accept, node, failure) counts only if its author
 *   claimed the task in the epoch the output names;
 * - for each output slot, the output of the highest epoch counts (the latest
 *   lease holder speaks for the task: a holder that crashed, restarted and
 *   finished stale work cannot overturn its successor), then the
 *   highest-ranked author, then the lowest id.
 */
import { compareRank } from '../protocol/hash'
import { taskId } from '../protocol/ids'
import type {
  ClaimRecord,
  FailureRecord,
  ResultRecord,
  TaskType,
  WireRecord,
} from '../protocol/records'
import { MAX_EPOCH } from '../protocol/limits'
import { MAX_TASK_ATTEMPTS, PEER_TROUBLE_ERRORS } from '../protocol/rules'
import { countedClaims, gapCounts } from './authority'
import type { PlanState } from './state'

export type TaskStatus = 'open' | 'claimed' | 'done' | 'failed'

export interface TaskState {
  id: string
  type: TaskType
  subject: string
  claims: readonly ClaimRecord[]
  /** highest claimed epoch; -1 when never claimed */
  epoch: number
  /** winning claim of the current epoch */
  holder: ClaimRecord | null
  /** the holder of the current epoch gave the task back (published a failure) */
  released: boolean
  result: ResultRecord | null
  /** failures by claimants (releases), each for the epoch it held */
  failures: readonly FailureRecord[]
  /** claimants whose failure counts as an attempt (not a peer's own trouble: PEER_TROUBLE_ERRORS) */
  failedBy: ReadonlySet<string>
  /**
   * outputs (results, failures; for decide tasks accepts and nodes) whose
   * author's claim has not reached us yet: someone did the work, and the
   * claim that makes it count will arrive by sync
   */
  unclaimedOutputs: number
  /** a capability-gap notice, counted only while nobody has claimed the epoch it names or a later one */
  gap: FailureRecord | null
  status: TaskStatus
}

/** Is `record` (with an epoch) the output of someone who claimed `task` in that epoch? */
export function authorised(task: TaskState, record: WireRecord & { epoch: number }): boolean {
  return task.claims.some((claim) => claim.from === record.from && claim.epoch === record.epoch)
}

/** Order outputs of one slot: highest epoch first, then best-ranked author, then lowest id. */
export function compareOutputs<R extends WireRecord & { epoch: number }>(taskKey: string) {
  return (a: R, b: R): number =>
    b.epoch - a.epoch ||
    compareRank(taskKey, a.from, b.from) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

export function bestOutput<R extends WireRecord & { epoch: number }>(
  task: TaskState,
  outputs: readonly R[],
): R | null {
  let best: R | null = null
  const compare = compareOutputs<R>(task.id)
  for (const output of outputs) {
    if (!authorised(task, output)) continue
    if (best === null || compare(output, best) < 0) best = output
  }
  return best
}

/**
 * An output whose author's claim is here but does not count will never
 * count: nothing to wait for. (A function, not a closure in deriveTask: tsx
 * names each closure as it is made, a cost on every derivation in the
 * simulator.)
 */
function awaited(raw: readonly ClaimRecord[], output: WireRecord & { epoch: number }): boolean {
  return !raw.some((claim) => claim.from === output.from && claim.epoch === output.epoch)
}

export function deriveTask(plan: PlanState, type: TaskType, subject: string): TaskState {
  const id = taskId(type, subject)
  const records = plan.taskRecords(id)
  // epochs move one checkable step at a time, never past a result (authority.ts)
  const raw = records.claims.filter((claim) => claim.taskType === type && claim.subject === subject)
  const claims = countedClaims(raw, type === 'decide' ? [] : records.results)
  let epoch = -1
  for (const claim of claims) epoch = Math.max(epoch, claim.epoch)
  let holder: ClaimRecord | null = null
  for (const claim of claims) {
    if (claim.epoch !== epoch) continue
    if (holder === null || compareRank(id, claim.from, holder.from) < 0) holder = claim
  }
  const task: TaskState = {
    id,
    type,
    subject,
    claims,
    epoch,
    holder,
    released: false,
    result: null,
    failures: [],
    failedBy: new Set(),
    unclaimedOutputs: 0,
    gap: null,
    status: 'open',
  }
  task.result = bestOutput(task, records.results)
  // a finished task's holder is who finished it: a claim heard late (a peer
  // that restarted and had not yet heard of the result) must not rewrite it,
  // or two peers would show different holders until that claim reached both
  const doneBy = task.result
  if (doneBy) {
    task.holder = claims.find((c) => c.from === doneBy.from && c.epoch === doneBy.epoch) ?? holder
  }
  task.unclaimedOutputs = records.results.filter(
    (result) => !authorised(task, result) && awaited(raw, result),
  ).length
  const failures: FailureRecord[] = []
  const failedBy = new Set<string>()
  let gap: FailureRecord | null = null
  for (const failure of plan.failures(id)) {
    if (failure.stage === 'capability-gap') {
      // only for the open epoch, and only after its re-announce (authority.ts)
      if (gapCounts(failure, epoch, records.reannounces) && (gap === null || failure.id < gap.id)) {
        gap = failure
      }
    } else if (!authorised(task, failure)) {
      if (awaited(raw, failure)) task.unclaimedOutputs++
    } else if (failure.index === -1) {
      failures.push(failure)
      if (!PEER_TROUBLE_ERRORS.has(failure.errorKind)) failedBy.add(failure.from)
    }
  }
  task.failures = failures
  task.failedBy = failedBy
  task.gap = gap
  task.released =
    holder !== null && failures.some((f) => f.from === holder.from && f.epoch === holder.epoch)
  task.status = task.result
    ? 'done'
    : failedBy.size >= MAX_TASK_ATTEMPTS || task.gap || (task.released && epoch >= MAX_EPOCH)
      ? 'failed'
      : holder && !task.released
        ? 'claimed'
        : 'open'
  return task
}
