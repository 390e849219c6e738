/** Words for the author's steering of a goal (issue 27). */
import type { ApprovalMode } from '../../protocol/records'

/** The choices of "Ask me before a split is accepted". */
export const APPROVAL_LABELS: Record<ApprovalMode, string> = {
  none: 'Never',
  root: 'For the first split',
  every: 'For every split',
}

/**
 * Whether this tab steers (and cancels) `goal`: it wrote it, or it acts for
 * the same member as the tab that did (`me`: this tab's member; null for a
 * peer without one), as the plan counts such a tab's steering (PROTOCOL.md
 * §5.10). Another person's tab gets no controls: its records would count
 * for nothing.
 */
export function steersGoal(
  goal: { createdBy: string; createdByMember: string | null },
  self: string,
  me: string | null,
): boolean {
  return goal.createdBy === self || (me !== null && goal.createdByMember === me)
}
