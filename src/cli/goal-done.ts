/**
 * The end of a goal an agent submitted (--goal): where its final plan is
 * written and the line that says so. Pure: the caller writes the file.
 */
import { join } from 'node:path'
import { goalEndWords, leafCountWords } from '../plan/goal-status'
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

/**
 * "goal done: “…” (7 of 7 leaves done); plan written to PATH", or finished
 * with failed parts, failed, cancelled: the words and counts every view
 * uses (plan/goal-status.ts).
 */
export function goalEndLine(goal: GoalView, path: string): string {
  return `goal ${goalEndWords(goal)}: “${goal.text}” (${leafCountWords(goal.leaves)}); plan written to ${path}`
}
