/**
 * Ids that are derived by rule rather than carried by one record. Every peer
 * computes them from what all peers agree on, so two peers that publish the
 * same decision publish the same id.
 */
import { contentId, remember } from './hash'
import type { TaskType } from './records'

/**
 * A classified subgoal: from its goal, the accepted proposal, its place in
 * it, its text and its atomicity. A composite node is a goal one level
 * deeper and its goal id IS this node id, so however many scorers handle the
 * split, the child goal has one id and is decomposed once.
 */
export function nodeId(
  goal: string,
  proposal: string,
  index: number,
  text: string,
  atomic: boolean,
): string {
  const key = `${goal}:${proposal}:${index}:${atomic}:${text}`
  let id = nodeIds.get(key)
  if (id === undefined)
    remember(nodeIds, key, (id = contentId(['node', goal, proposal, index, text, atomic])))
  return id
}
const nodeIds = new Map<string, string>()

/** A task that exactly one peer should do at a time (claimed, leased, taken over). */
export function taskId(type: TaskType, subject: string): string {
  const key = `${type}:${subject}`
  let id = taskIds.get(key)
  if (id === undefined) remember(taskIds, key, (id = contentId(['task', type, subject])))
  return id
}
const taskIds = new Map<string, string>()
