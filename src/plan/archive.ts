/**
 * Archiving settled root goals: which records make up a root goal's tree,
 * and the plan state without them. Pure.
 *
 * A root goal's tree is closed: no record outside it refers to a record in
 * it (child goal ids, task ids and failure subjects are all derived from the
 * tree's own goal ids), and every decision about a goal is a function of
 * its own tree. So dropping a settled tree leaves every other goal's
 * derivation exactly as it was (tested in archive.test.ts).
 */
import { nodeId, taskId } from '../protocol/ids'
import type { DerivedPlan } from './derive'
import { PlanState } from './state'

/**
 * Root goals whose plan is over: done, failed or cancelled. Not those of an
 * author with goals held by the limits (goal-limits.ts): a settled goal still
 * fills a place in its author's rate window, and dropping it here alone
 * could let a held goal count on this peer before it counts on the others.
 */
export function settledRoots(plan: DerivedPlan): string[] {
  const waiting = new Set(plan.held.map((id) => plan.heldBy.get(id)))
  return plan.roots.filter((id) => {
    const goal = plan.goals.get(id)
    const status = goal?.status
    return (
      (status === 'done' || status === 'failed' || status === 'cancelled') &&
      !waiting.has(goal!.createdBy)
    )
  })
}

/**
 * Is the plan over: has it goals, every root settled (settledRoots) and none
 * held by the goal limits? Nothing is left to do until a new goal comes.
 */
export function planOver(plan: DerivedPlan): boolean {
  return (
    plan.roots.length > 0 &&
    plan.held.length === 0 &&
    settledRoots(plan).length === plan.roots.length
  )
}

/**
 * Ids of every record of the tree under root goal `root` that `state` holds.
 * Walks the records themselves, not only the derived tree, so records that
 * lost (a second accept, the children of a split whose accept lost) go
 * with their tree too, and so do the author's
 * steering records and every execute task of a leaf's redos. Not walked: the
 * roll-up tasks a redo or a veto renamed (steering.ts rollupSubject) other
 * than the current ones (`current`, from the derived plan): their subject
 * hashes a set of redos no record names.
 */
export function treeRecordIds(
  state: PlanState,
  root: string,
  current: readonly string[] = [],
): Set<string> {
  const ids = new Set<string>()
  const addFailures = (subject: string) => {
    for (const failure of state.failures(subject)) ids.add(failure.id)
  }
  const addTask = (task: string) => {
    const records = state.taskRecords(task)
    for (const r of records.claims) ids.add(r.id)
    for (const r of records.results) ids.add(r.id)
    for (const r of records.reannounces) ids.add(r.id)
    addFailures(task)
    // a redo's next execute task has the redo's id as its subject (steering.ts)
    for (const redo of records.redos) {
      ids.add(redo.id)
      addTask(taskId('execute', redo.id))
    }
  }
  if (state.has(root)) ids.add(root)
  for (const task of current) addTask(task)
  const seen = new Set<string>([root])
  const queue = [root]
  for (let goal = queue.pop(); goal !== undefined; goal = queue.pop()) {
    const records = state.goalRecords(goal)
    for (const r of records.proposals) {
      ids.add(r.id)
      addFailures(r.id)
    }
    for (const r of records.scores) ids.add(r.id)
    for (const r of records.accepts) ids.add(r.id)
    for (const r of records.cancels) ids.add(r.id)
    for (const r of records.steers) ids.add(r.id)
    for (const r of records.verdicts) ids.add(r.id)
    addFailures(goal)
    addTask(taskId('decide', goal))
    addTask(taskId('rollup', goal))
    // an accepted split's subgoals are classified by its voters (classify.ts):
    // walk both ways a subgoal may have gone, for every accept, counted or not
    for (const accept of records.accepts) {
      const subgoals = state.proposals.get(accept.proposal)?.subgoals ?? []
      subgoals.forEach((subgoal, index) => {
        addTask(taskId('execute', nodeId(goal, accept.proposal, index, subgoal.text, true)))
        const child = nodeId(goal, accept.proposal, index, subgoal.text, false)
        if (!seen.has(child)) {
          seen.add(child)
          queue.push(child)
        }
      })
    }
  }
  return ids
}

/** Ids of every record of the trees of `roots` (`plan`: their current, maybe renamed, roll-ups). */
export function archiveIds(
  state: PlanState,
  roots: readonly string[],
  plan?: DerivedPlan,
): Set<string> {
  const ids = new Set<string>()
  for (const root of roots) {
    const current = plan
      ? [...plan.goals.values()].filter((g) => g.root === root).map((g) => g.rollup.id)
      : []
    for (const id of treeRecordIds(state, root, current)) ids.add(id)
  }
  return ids
}

/**
 * A plan state holding every record of `state` but `drop`. Its version is
 * above the old one, so views cached by version are recomputed.
 */
export function withoutRecords(state: PlanState, drop: ReadonlySet<string>): PlanState {
  const next = new PlanState()
  for (const record of state.records()) if (!drop.has(record.id)) next.add(record)
  next.version = Math.max(next.version, state.version + 1)
  return next
}
