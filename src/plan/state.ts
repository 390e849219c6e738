/**
 * Plan state: grow-only sets of records keyed by content id.
 *
 * Adding a record twice is a no-op and merging is set union, so any order
 * of delivery, with duplicates, yields the same state. Nothing is ever
 * overwritten, and nothing is removed but an author's records over its
 * quota (src/protocol/quota.ts: of one author's records of one kind, the
 * lowest ids are kept, the same on every peer in any order of delivery):
 * everything a peer believes about the plan (which split won, who holds a
 * leaf, which result counts) is derived from this set by the pure rules in
 * derive.ts.
 *
 * The indexes below only speed up those rules; they hold nothing that the
 * record set does not. Each index list is kept sorted by record id, so no
 * rule can see (and come to depend on) the order records arrived in: the
 * same set gives the same lists on every peer. Only records() and ids()
 * iterate in arrival order; their users must not depend on it.
 */
import type {
  AcceptRecord,
  CancelRecord,
  ClaimRecord,
  FailureRecord,
  GoalRecord,
  PlanRecord,
  ProposalRecord,
  ReannounceRecord,
  RedoRecord,
  ResultRecord,
  ScoreRecord,
  SteerRecord,
  VerdictRecord,
} from '../protocol/records'
import { AuthorQuota } from '../protocol/quota'
import type { MemberRecord } from '../protocol/records'

/** Everything recorded about one goal id (a root goal or a composite node). */
export interface GoalIndex {
  proposals: ProposalRecord[]
  scores: ScoreRecord[]
  accepts: AcceptRecord[]
  cancels: CancelRecord[]
  steers: SteerRecord[]
  verdicts: VerdictRecord[]
}

/** Everything recorded about one task id. */
export interface TaskIndex {
  claims: ClaimRecord[]
  results: ResultRecord[]
  reannounces: ReannounceRecord[]
  redos: RedoRecord[]
}

export class PlanState {
  private readonly byId = new Map<string, PlanRecord>()
  readonly roots = new Map<string, GoalRecord>()
  readonly proposals = new Map<string, ProposalRecord>()
  readonly scores = new Map<string, ScoreRecord>()
  private readonly goalIndex = new Map<string, GoalIndex>()
  private readonly taskIndex = new Map<string, TaskIndex>()
  /** failures by subject (task id, goal id or proposal id) */
  private readonly failureIndex = new Map<string, FailureRecord[]>()
  /** bind, admit and rekey records (membership.ts derives the room's members from them) */
  private readonly memberIndex: MemberRecord[] = []
  /** grows by one with every record added or evicted: a cheap key for caching derived views */
  version = 0

  /** `quota`: the per-author quota (quota.ts); a filtered copy of a held set passes one without limits */
  constructor(private readonly quota: AuthorQuota = new AuthorQuota()) {}

  get size(): number {
    return this.byId.size
  }

  has(id: string): boolean {
    return this.byId.has(id)
  }

  get(id: string): PlanRecord | undefined {
    return this.byId.get(id)
  }

  records(): IterableIterator<PlanRecord> {
    return this.byId.values()
  }

  ids(): IterableIterator<string> {
    return this.byId.keys()
  }

  /**
   * Add a validated record. Returns false when it was already present or is
   * over its author's quota; a record it pushes out of the quota is removed.
   */
  add(record: PlanRecord): boolean {
    if (this.byId.has(record.id)) return false
    const verdict = this.quota.admit(record)
    if (!verdict.kept) return false
    // a bind joining two quota slots can push out several records
    for (const id of verdict.evictions) this.evict(id)
    this.byId.set(record.id, record)
    this.version++
    switch (record.kind) {
      case 'goal':
        this.roots.set(record.id, record)
        break
      case 'proposal':
        this.proposals.set(record.id, record)
        insertById(this.goal(record.goal).proposals, record)
        break
      case 'score':
        this.scores.set(record.id, record)
        insertById(this.goal(record.goal).scores, record)
        break
      case 'accept':
        insertById(this.goal(record.goal).accepts, record)
        break
      case 'cancel':
        insertById(this.goal(record.goal).cancels, record)
        break
      case 'claim':
        insertById(this.task(record.task).claims, record)
        break
      case 'result':
        insertById(this.task(record.task).results, record)
        break
      case 'reannounce':
        insertById(this.task(record.task).reannounces, record)
        break
      case 'steer':
        insertById(this.goal(record.goal).steers, record)
        break
      case 'verdict':
        insertById(this.goal(record.goal).verdicts, record)
        break
      case 'redo':
        insertById(this.task(record.task).redos, record)
        break
      case 'bind':
      case 'admit':
      case 'rekey':
        insertById(this.memberIndex, record)
        break
      case 'failure': {
        const list = this.failureIndex.get(record.subject)
        if (list) insertById(list, record)
        else this.failureIndex.set(record.subject, [record])
        break
      }
    }
    return true
  }

  /** Drops a record pushed out of its author's quota from the set and every index. */
  private evict(id: string): void {
    const record = this.byId.get(id)
    if (record === undefined) return
    this.byId.delete(id)
    this.version++
    const drop = <R extends { id: string }>(list: R[] | undefined) => {
      const at = list?.findIndex((r) => r.id === id) ?? -1
      if (at >= 0) list!.splice(at, 1)
    }
    switch (record.kind) {
      case 'goal':
        this.roots.delete(id)
        break
      case 'proposal':
        this.proposals.delete(id)
        drop(this.goalIndex.get(record.goal)?.proposals)
        break
      case 'score':
        this.scores.delete(id)
        drop(this.goalIndex.get(record.goal)?.scores)
        break
      case 'accept':
        drop(this.goalIndex.get(record.goal)?.accepts)
        break
      case 'cancel':
        drop(this.goalIndex.get(record.goal)?.cancels)
        break
      case 'claim':
        drop(this.taskIndex.get(record.task)?.claims)
        break
      case 'result':
        drop(this.taskIndex.get(record.task)?.results)
        break
      case 'reannounce':
        drop(this.taskIndex.get(record.task)?.reannounces)
        break
      case 'steer':
        drop(this.goalIndex.get(record.goal)?.steers)
        break
      case 'verdict':
        drop(this.goalIndex.get(record.goal)?.verdicts)
        break
      case 'redo':
        drop(this.taskIndex.get(record.task)?.redos)
        break
      case 'bind':
      case 'admit':
      case 'rekey':
        drop(this.memberIndex)
        break
      case 'failure':
        drop(this.failureIndex.get(record.subject))
        break
    }
  }

  /** Union: add every record of `other`. */
  merge(other: PlanState): void {
    for (const record of other.records()) this.add(record)
  }

  goalRecords(goal: string): GoalIndex {
    return this.goalIndex.get(goal) ?? EMPTY_GOAL
  }

  taskRecords(task: string): TaskIndex {
    return this.taskIndex.get(task) ?? EMPTY_TASK
  }

  /** The bind, admit and rekey records held, by id. */
  memberRecords(): readonly MemberRecord[] {
    return this.memberIndex
  }

  failures(subject: string): readonly FailureRecord[] {
    return this.failureIndex.get(subject) ?? []
  }

  private goal(id: string): GoalIndex {
    let entry = this.goalIndex.get(id)
    if (!entry) {
      entry = newGoalIndex()
      this.goalIndex.set(id, entry)
    }
    return entry
  }

  private task(id: string): TaskIndex {
    let entry = this.taskIndex.get(id)
    if (!entry) {
      entry = newTaskIndex()
      this.taskIndex.set(id, entry)
    }
    return entry
  }
}

/** Insert into a list kept sorted by id (ids are unique: add() dedupes first). */
function insertById<R extends { id: string }>(list: R[], record: R): void {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (list[mid]!.id < record.id) lo = mid + 1
    else hi = mid
  }
  list.splice(lo, 0, record)
}

function newGoalIndex(): GoalIndex {
  return {
    proposals: [],
    scores: [],
    accepts: [],
    cancels: [],
    steers: [],
    verdicts: [],
  }
}

function newTaskIndex(): TaskIndex {
  return { claims: [], results: [], reannounces: [], redos: [] }
}

const EMPTY_GOAL: GoalIndex = Object.freeze(newGoalIndex())
const EMPTY_TASK: TaskIndex = Object.freeze(newTaskIndex())
