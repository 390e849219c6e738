/**
 * Copies of a finished root goal's tree under a new root id, for building a
 * room of many finished goals quickly: the root goal gets another creation
 * time, and every id that depends on it (record ids, node ids, task ids) is
 * recomputed, so the copy derives exactly like the original (bench/archive.ts
 * checks that every copy is settled).
 */
import { nodeId, taskId } from '../src/protocol/ids'
import { stamp, type Draft, type GoalRecord, type PlanRecord } from '../src/protocol/records'

type Ids = Map<string, string>

/** Replaces every string that is a known old id, at any depth. */
function rewrite(value: unknown, ids: Ids): unknown {
  if (typeof value === 'string') return ids.get(value) ?? value
  if (Array.isArray(value)) return value.map((v) => rewrite(v, ids))
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = k === 'id' ? v : rewrite(v, ids)
    return out
  }
  return value
}

/** The old ids a record refers to: all must be mapped before it is copied. */
function refs(record: PlanRecord): string[] {
  const r = record as Record<string, unknown>
  const out: string[] = []
  for (const key of ['goal', 'proposal', 'task', 'subject']) {
    if (typeof r[key] === 'string') out.push(r[key] as string)
  }
  if (record.kind === 'accept') out.push(...record.votes)
  return out
}

function mapGoalTasks(oldGoal: string, newGoal: string, ids: Ids): void {
  ids.set(oldGoal, newGoal)
  ids.set(taskId('decide', oldGoal), taskId('decide', newGoal))
  ids.set(taskId('rollup', oldGoal), taskId('rollup', newGoal))
}

/**
 * A copy of the tree `records` (root goal first or anywhere) whose root goal
 * was created `shift` ms later. Records whose references cannot be mapped
 * (none in a closed tree) are left out.
 */
export function cloneTree(records: readonly PlanRecord[], shift: number): PlanRecord[] {
  const ids: Ids = new Map()
  const proposals = new Map<string, PlanRecord>()
  for (const r of records) if (r.kind === 'proposal') proposals.set(r.id, r)
  const out: PlanRecord[] = []
  let pending = [...records]
  for (let progress = true; progress && pending.length > 0;) {
    progress = false
    const later: PlanRecord[] = []
    for (const record of pending) {
      if (record.kind === 'goal') {
        const { id: _id, v: _v, ...draft } = record
        const copy = stamp({ ...draft, createdAt: record.createdAt + shift } as Draft<GoalRecord>)
        mapGoalTasks(record.id, copy.id, ids)
        out.push(copy)
        progress = true
        continue
      }
      if (!refs(record).every((id) => ids.has(id))) {
        later.push(record)
        continue
      }
      const { id: _id, v: _v, ...draft } = rewrite(record, ids) as PlanRecord
      const copy = stamp(draft as Draft<PlanRecord>)
      ids.set(record.id, copy.id)
      // an accepted split's subgoals are classified by its voters (plan/classify.ts):
      // map both ids each subgoal may have, its leaf's and its child goal's
      if (record.kind === 'accept' && copy.kind === 'accept') {
        const proposal = proposals.get(record.proposal)
        const subgoals = proposal?.kind === 'proposal' ? proposal.subgoals : []
        subgoals.forEach(({ text }, index) => {
          for (const atomic of [true, false]) {
            const before = nodeId(record.goal, record.proposal, index, text, atomic)
            const after = nodeId(copy.goal, copy.proposal, index, text, atomic)
            if (atomic) ids.set(taskId('execute', before), taskId('execute', after))
            else mapGoalTasks(before, after, ids)
            ids.set(before, after)
          }
        })
      }
      out.push(copy)
      progress = true
    }
    pending = later
  }
  return out
}
