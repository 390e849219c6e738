/**
 * The end of a goal an agent submitted (--goal): where its final plan is
 * written and the line that says so. Pure: the caller writes the file.
 */
import { join } from 'node:path'
import type { GoalView } from '../plan/tree'

/** Characters of the goal's text in its file name: readable in a listing, short. */
const SLUG_CHARS = 40

/** `<dir>/<goal text as a slug>-<first 8 of its id>.md`: one file per goal, never another's. */
export function planPath(dir: string, goal: Pick<GoalView, 'id' | 'text'>): string {
  const slug =
    goal.text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, SLUG_CHARS)
      .replace(/-+$/, '') || 'goal'
  return join(dir, `${slug}-${goal.id.slice(0, 8)}.md`)
}

function leafCount(goal: GoalView): { leaves: number; done: number; failed: number } {
  const count = { leaves: 0, done: 0, failed: 0 }
  for (const slot of goal.slots) {
    if (slot.goal) {
      const below = leafCount(slot.goal)
      count.leaves += below.leaves
      count.done += below.done
      count.failed += below.failed
    } else {
      count.leaves++
      if (slot.status === 'done') count.done++
      if (slot.status === 'failed') count.failed++
    }
  }
  return count
}

/** "goal done: “…” (7 of 7 leaves done); plan written to PATH" (or failed, cancelled). */
export function goalEndLine(goal: GoalView, path: string): string {
  const { leaves, done, failed } = leafCount(goal)
  const failedNote = failed ? `, ${failed} failed` : ''
  return `goal ${goal.status}: “${goal.text}” (${done} of ${leaves} leaves done${failedNote}); plan written to ${path}`
}
