/** Words for the author's steering of a goal (issue 27). */
import type { ApprovalMode } from '../../protocol/records'

/** The choices of "Ask me before a split is accepted". */
export const APPROVAL_LABELS: Record<ApprovalMode, string> = {
  none: 'Never',
  root: 'For the first split',
  every: 'For every split',
}
