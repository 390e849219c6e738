/**
 * Ids that are derived by rule rather than carried by one record. Every peer
 * computes them from what all peers agree on, so two peers that publish the
 * same decision publish the same id.
 */
import { contentId } from './hash'
import type { TaskType } from './records'

/**
 * A classified subgoal: from its goal, the accepted proposal, its place in
 * it, its text and its atomicity. A composite node is a goal one level
 * deeper and its goal id IS this node id, so however many scorers handle the
 * split, the child goal has one id and is decomposed once.
 */
export function nodeId(goal: string, proposal: string, index: number, text: string, atomic: boolean): string {
  return contentId(['node', goal, proposal, index, text, atomic])
}

/** A task that exactly one peer should do at a time (claimed, leased, taken over). */
export function taskId(type: TaskType, subject: string): string {
  return contentId(['task', type, subject])
}
