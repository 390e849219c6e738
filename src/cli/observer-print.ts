/**
 * What a headless observer prints as the plan grows: a new goal's tree
 * whole, then only the lines that changed (a status mark, a claim, a vote),
 * each under the time it was seen; when a goal is settled, its whole tree
 * once more and its final plan in Markdown (the export a tab downloads).
 *
 * A plain terminal or a log file gets lines appended, never redrawn: no
 * cursor movement, no colour. The agent calls step() at most once a second
 * (OBSERVER_PRINT_INTERVAL_MS), so a burst of records is one block.
 *
 * Pure apart from its memory of what it printed: a tree in, lines out.
 */
import { exportMarkdown } from '../plan/export'
import { goalEndWords } from '../plan/goal-status'
import type { GoalView, PlanTree } from '../plan/tree'
import { rootGoalLines, settled, shortPeer } from './tree-lines'

/**
 * Fewest ms between two printed updates: a change a second reads as a
 * live view, while a sync that brings hundreds of records prints one block.
 */
export const OBSERVER_PRINT_INTERVAL_MS = 1_000

/** The lines around a final plan: plain to read, and no Markdown a renderer would mistake. */
export const FINAL_PLAN_START = '=== Final plan of'
export const FINAL_PLAN_END = '=== End of the plan'

export interface PrintOptions {
  /** the final plan in Markdown after a settled goal's tree (default true) */
  finalPlan?: boolean
}

/** HH:MM:SS in local time: what every line of the agent is stamped with. */
export function clock(at: number): string {
  const d = new Date(at)
  return [d.getHours(), d.getMinutes(), d.getSeconds()]
    .map((n) => String(n).padStart(2, '0'))
    .join(':')
}

/** "done: “…” (by …)", "finished with 2 failed parts: …": as every view says it (plan/goal-status.ts). */
function summary(goal: GoalView): string {
  return `${goalEndWords(goal)}: “${goal.text}” (by ${shortPeer(goal.createdBy)})`
}

export class TreePrinter {
  /** per root goal: the text of each line key, as last printed */
  private readonly shown = new Map<string, Map<string, string>>()
  private readonly finished = new Set<string>()

  constructor(private readonly options: PrintOptions = {}) {}

  /** The lines to print for `tree` (empty when nothing changed); `at` stamps the block. */
  step(tree: PlanTree, at: number): string[] {
    const out: string[] = []
    for (const goal of tree.goals) {
      if (this.finished.has(goal.id)) continue
      const lines = rootGoalLines(goal)
      const before = this.shown.get(goal.id)
      const now = new Map(lines.map((line) => [line.key, line.text]))
      this.shown.set(goal.id, now)
      if (settled(goal)) {
        this.finished.add(goal.id)
        out.push('', `${clock(at)} Goal ${summary(goal)}`, ...lines.map((line) => line.text))
        if (this.options.finalPlan !== false)
          out.push(
            '',
            `${FINAL_PLAN_START} “${goal.text}” (Markdown)`,
            '',
            exportMarkdown(tree, goal.id).trimEnd(),
            '',
            FINAL_PLAN_END,
          )
        continue
      }
      if (!before) {
        out.push('', `${clock(at)} New goal`, ...lines.map((line) => line.text))
        continue
      }
      const changed = lines.filter((line) => before.get(line.key) !== line.text)
      if (changed.length) out.push(`${clock(at)}`, ...changed.map((line) => line.text))
    }
    return out
  }
}
