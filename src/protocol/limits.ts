/**
 * Size limits of the wire protocol. A record over any of them is rejected,
 * so no peer can make another hold or forward unbounded data.
 */

/** Goal text: a paragraph is plenty to state a goal. */
export const MAX_GOAL_TEXT = 2_000
/** One subgoal: a sentence or two; longer means it is not one step. */
export const MAX_SUBGOAL_TEXT = 400
/** The prototype splits into 2 to 6 subgoals. */
export const MIN_SUBGOALS = 2
export const MAX_SUBGOALS = 6
export const MAX_RATIONALE = 1_500
export const MAX_NOTES = 600
export const MAX_REASON = 400
/** A leaf's deliverable or a roll-up document: a long Markdown page. */
export const MAX_OUTPUT = 60_000
export const MAX_DETAIL = 500
/** A decider cites every vote it saw; more scorers than this add nothing. */
export const MAX_VOTES = 64
/** Tasks a presence beat can list as held (leases it renews). */
export const MAX_HOLDING = 64
/** Deepest decomposition allowed by the protocol (the default cap is 3). */
export const MAX_DEPTH_LIMIT = 6
export const DEFAULT_MAX_DEPTH = 3
/** Takeovers per task: a task passed on this often is not worth another try. */
export const MAX_EPOCH = 1_000
/** Encoded body of one record. Results (60k chars of UTF-8) are the largest. */
export const MAX_RECORD_BYTES = 256 * 1024
/** A room name: short, URL-safe, shown in share links. */
export const MAX_ROOM = 64
export const MAX_MODEL_LABEL = 80
