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
/** An author's note on a veto or a redo ("use metric units", "cite sources"): a few sentences. */
export const MAX_NOTE = 600
/** Proposals a veto sends back: a goal has a few (MAX_PROPOSALS_PER_GOAL first, fallbacks after). */
export const MAX_RETIRED_PROPOSALS = 32
/**
 * Vetoes that count per goal: each one costs the room a new round of
 * proposals and scores, so a goal's author cannot make the room decompose
 * one goal forever. A fourth veto does nothing; cancel the goal instead.
 */
export const MAX_VETOES_PER_GOAL = 3
/**
 * Redos that count per leaf: each one is a new execute call and new roll-ups
 * up to the root, so a redo storm on one leaf stops after this many.
 */
export const MAX_REDOS_PER_LEAF = 3
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

/** A person's label in an `admit` (the member list shows it): a name, not a biography. */
export const MAX_MEMBER_NAME = 40
/**
 * Members a rekey can seal the new secret to, and remove at once: a room of
 * people, not a crowd (each box is ~150 bytes, so 256 of them are ~40 KB,
 * far under MAX_RECORD_BYTES).
 */
export const MAX_MEMBERS = 256
/**
 * Record ids a rekey's `kept` may list: what of the members it removes keeps
 * counting (membership.ts). Sized so that a rekey with MAX_MEMBERS boxes,
 * MAX_MEMBERS removed and a full list stays under MAX_RECORD_BYTES (each id
 * is 35 bytes of JSON: 32 hex digits, quotes and a comma; the rest of such a
 * rekey is about 52 KB, the whole 226,800 bytes; member-records.test.ts
 * checks it). An honest
 * member reaches it only after a very long session: a busy executor or
 * scorer writes a few dozen records per root goal it works on, so 5,000
 * are well over a hundred goals' work (archived goals' records included).
 */
export const MAX_KEPT = 5_000
/** Room epochs (rekeys): one per reset or removal, so a million is no bound a room reaches. */
export const MAX_ROOM_EPOCH = 1_000_000

/**
 * Goals per author (src/plan/goal-limits.ts). A room member's root goals
 * beyond these do not count: no peer decomposes them or shows them as live.
 * They bound what one member (one signing key) can make every tab spend.
 */
/**
 * Root goals one author may start per window, by the goals' own createdAt.
 * A person types a goal in tens of seconds; six a minute leaves room for a
 * quick batch yet stops a burst of hundreds. An author can lie about
 * createdAt to spread goals over past minutes: MAX_OPEN_GOALS_PER_AUTHOR is
 * the bound that does not depend on the clock.
 */
export const GOALS_PER_AUTHOR_PER_WINDOW = 6
export const GOAL_RATE_WINDOW_MS = 60_000
/**
 * Root goals of one author that count while not yet done, failed or
 * cancelled. A person follows a few plans at a time; each open goal can
 * cost every tab in the room a whole tree of LLM calls, so three is the most
 * one member can have the room work on at once. More wait (queued) until
 * one settles.
 */
export const MAX_OPEN_GOALS_PER_AUTHOR = 3

/**
 * Plan records one author (since version 7: one member, all its bound
 * PeerIds together; quota.ts) may have in a peer's store at once, per kind
 * (src/protocol/quota.ts, docs/PROTOCOL.md §4.1): of more, a peer keeps the
 * ones with the lowest ids. It bounds what a member's flood (valid records
 * that count for nothing, such as cancels of others' goals) adds to every
 * store, by gossip or by sync. Sized so that an honest author never reaches
 * it in a room whose settled goals are archived now and then:
 *
 * - goals: §5.11 lets a person start 6 a minute and keep 3 open, and the app
 *   refuses one that would wait; 512 is over an hour and a half at that
 *   pace with nothing archived. A cancel is one per own goal, at most.
 * - steering (steers, verdicts, redos): a person's clicks on their own
 *   goals, a few per goal (vetoes and redos count only up to
 *   MAX_VETOES_PER_GOAL and MAX_REDOS_PER_LEAF); 1,024 is twice the goals.
 * - the work of roles (proposals, scores, claims, accepts, results,
 *   failures, re-announces): at most a few per goal or task it worked on.
 *   A root goal's tree at the default depth has at most 216 leaves and 43
 *   goals, so 4,096 is a dozen such trees' every task done by one executor.
 */
export const AUTHOR_QUOTA = {
  goal: 512,
  cancel: 512,
  proposal: 4_096,
  score: 4_096,
  claim: 4_096,
  accept: 4_096,
  result: 4_096,
  failure: 4_096,
  reannounce: 4_096,
  // the author's steering (issue 27): a person's clicks, a few per goal; a
  // room that archives settled goals never nears these
  steer: 1_024,
  verdict: 1_024,
  redo: 1_024,
  // members (since version 7). Binds count per PeerId, not per member (the
  // quota's slots are made from binds, so they cannot depend on them): a tab
  // binds once, and once more each time its person's link is reset.
  bind: 16,
  // an owner's admits: one per person invited or link reset
  admit: 1_024,
  // an owner's rekeys: one per removal or reset
  rekey: 256,
} as const satisfies Record<string, number>

/*
 * Tool groups (since version 8, issue 57; tool-groups.ts has their schemas).
 * Here, without zod, so that a page's settings can check a name without
 * loading the schemas.
 */
/** A group's name: a short word people and planners read, safe in a prompt and a URL. */
export const MAX_TOOL_GROUP_NAME = 32
/** An MCP tool's name as announced (MCP allows 128; a longer one is not offered). */
export const MAX_TOOL_NAME = 64
/**
 * Groups one executor announces: a person's few servers (files, a browser, a
 * database…). Each beat carries them, so the list stays small.
 */
export const MAX_TOOL_GROUPS = 4
/** Tools announced per group: the reference servers have 9 to 20. */
export const MAX_GROUP_TOOLS = 24

export const TOOL_GROUP_NAME = /^[a-z0-9][a-z0-9-]*$/
/** MCP's tool-name alphabet (2025-11-25 spec: letters, digits, `_`, `-`, `.`). */
export const TOOL_NAME = /^[A-Za-z0-9_.-]+$/
