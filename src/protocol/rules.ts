/**
 * The protocol's numbers. Times are durations measured on the receiver's own
 * clock (never compared across peers), so clock skew between peers changes
 * nothing, and a timer that fires late only delays an outcome, never changes
 * it.
 */

/** Acceptance: a proposal with votes of at least this from QUORUM_VOTES distinct scorers wins at once. */
export const QUORUM_SCORE = 0.6
export const QUORUM_VOTES = 2
/**
 * With no quorum this long after the decider first saw a proposal for the
 * goal, the best mean among proposals with QUORUM_VOTES votes wins.
 */
export const ACCEPT_DEADLINE_MS = 30_000

/**
 * A claimant that is not the task's first choice waits this long for a
 * better claim before it starts (the prototype's claim window). The first
 * choice starts at once: see STAGGER_MS.
 */
export const CLAIM_WINDOW_MS = 2_000
/**
 * Peers ranked k-th for a task (rendezvous order among live, eligible peers)
 * claim it only after k × STAGGER_MS without a claim. One second is far above
 * gossip latency between tabs (p95 ~25 ms), so the first choice's claim is
 * seen long before the second choice would claim, and rarely does anyone
 * compete; yet a dead or busy first choice costs only a second.
 */
export const STAGGER_MS = 1_000

/**
 * A contested claimant (not the first choice, a takeover, a resumed claim,
 * any decide claim) starts only after an anti-entropy round with its neighbours that began
 * after its claim: it then holds every claim and result they hold, which
 * gossip may have lost on the way. Peers in sync finish a round in one
 * round trip; one whose neighbours do not answer (a partition, a host
 * without sync) starts anyway after this long.
 */
export const SYNC_CHECK_TIMEOUT_MS = 10_000
/**
 * A decide claim's round begins this long after the claim, not at once. The
 * decider classifies meanwhile (roles/decide.ts) and publishes nothing until
 * the round has ended, so the wait costs nothing while a classification call
 * lasts longer than it and the round; and a rival that claimed at the same
 * moment from a different view of who is alive has had the time for its
 * claim to reach our neighbours, so the round brings it. Checking at once,
 * a decider whose answers were ready could publish its split beside the
 * rival's: 2 goals classified twice in 900 simulator seeds at 20% loss,
 * none with this delay (a few gossip hops). On a loaded machine the round
 * then still mostly ends within a 1 s call: rounds took 0.1 s (median) and
 * 0.4 s (p90) in the 32-peer bench.
 */
export const DECIDE_CHECK_DELAY_MS = 250
/**
 * That round ends once this many of its sessions have ended well (or all of
 * them, with fewer links): what gossip lost on the way to us, any neighbour
 * most likely holds, and waiting for every link put the slowest of up to ten
 * neighbours on the critical path of every decide (3 s of a 32-peer run on
 * two cores). The other sessions carry on.
 */
export const SYNC_CHECK_PEERS = 2

/**
 * Sessions a check round opens: a random three of the peer's links, of
 * which the first two to end well end the round. One spare covers a slow or
 * failing neighbour; every link (up to 10 at 11 peers) cost each neighbour a
 * session per claim, and a scorer claims every goal it decides.
 */
export const SYNC_CHECK_SESSIONS = 3

/**
 * Check rounds one peer may have in flight at once. A scorer often decides
 * two or three goals of a level within a second; with one round at a time,
 * the second decide waited out the first one's round before its own began
 * (1.6 s of a 32-peer run on two cores, where a round takes 1.5 to 2 s).
 * The cap bounds the sessions a burst of claims opens.
 */
export const SYNC_CHECK_ROUNDS = 3

/** A ready leaf unclaimed this long is re-announced once... */
export const REANNOUNCE_AFTER_MS = 60_000
/** ...and still unclaimed this long after the re-announce, it fails as a capability gap. */
export const CAPABILITY_GAP_AFTER_MS = 60_000

/** Presence beats: who is alive, and the leases on the tasks they hold. */
export const PRESENCE_INTERVAL_MS = 5_000
/**
 * An idle peer (holding nothing) beats only as a keepalive, every
 * KEEPALIVE_PER_PEER_MS × (peers it knows, itself included), never more often
 * than PRESENCE_INTERVAL_MS: the whole room then sends about one keepalive
 * per second whatever its size, so what each peer hears stays flat as rooms
 * grow. The price: a dead idle peer is taken for gone only after three of its
 * keepalives (about 3 s per peer in the room); leases do not pay it, since a
 * holder beats every PRESENCE_INTERVAL_MS.
 */
export const KEEPALIVE_PER_PEER_MS = 1_000
/** A keepalive gap is at most this (a room of 1,800 peers); the schema's cap on `every`. */
export const MAX_KEEPALIVE_MS = 30 * 60_000
/**
 * A peer answers newcomers (beats at once when it hears a peer it did not
 * know) at most every NEWCOMER_ANSWER_PER_PEER_MS × (peers it knows), and never
 * more often than every 0.5 s: a wave of joins costs the room a bounded number
 * of beats per second, and a newcomer still hears everyone within that gap.
 */
export const NEWCOMER_ANSWER_PER_PEER_MS = 50
export const MIN_BEAT_GAP_MS = 500

/** The keepalive gap of an idle peer that knows `peers` peers (itself included). */
export function keepaliveMs(peers: number): number {
  return Math.min(MAX_KEEPALIVE_MS, Math.max(PRESENCE_INTERVAL_MS, peers * KEEPALIVE_PER_PEER_MS))
}
/**
 * A room is quiet for a peer that holds nothing and has heard no plan record
 * for QUIET_ROOM_AFTER_MS (OVER_ROOM_AFTER_MS once the plan is over; and has
 * run that long). Its keepalive gap is then
 * at least QUIET_KEEPALIVE_MS: a room of tabs left open after their plan sends
 * a beat per peer per minute instead of per 5 s: with the links' pings
 * (net QUIET_LINK_PING_INTERVAL_MS), beats were most of what a quiet tab
 * received. What it costs: a quiet peer that
 * dies unannounced is taken for gone only after presenceTtlMs(60 s) = 181 s;
 * until then it may be ranked first for new work, which delays that work by
 * a claim stagger, not more. A plan record makes the room busy again, and the
 * peer's next step beats at its busy gap (its last, longer promise is kept).
 */
export const QUIET_ROOM_AFTER_MS = 60_000
export const QUIET_KEEPALIVE_MS = 60_000
/**
 * A room whose plan is over (it has goals, and every root goal is done,
 * failed or cancelled) has nothing left to wait for, not even a long LLM
 * call: it is quiet this long after its last plan record instead of
 * QUIET_ROOM_AFTER_MS. Long enough for a plan's last records (a late vote,
 * the copies of the last roll-up) to come in; the rest of the minute cost
 * every tab 1 to 4% of a core (all links up, one-second timers) after each
 * plan (bench:idle). A new goal wakes the room as any record does. The net
 * layer thins its links after the same time (net/topology.ts quietAfterMs).
 */
export const OVER_ROOM_AFTER_MS = 15_000

/** How long after its last plan record a room is quiet: OVER_ROOM_AFTER_MS once its plan is over. */
export function quietRoomAfterMs(planOver: boolean): number {
  return planOver ? OVER_ROOM_AFTER_MS : QUIET_ROOM_AFTER_MS
}

/** The keepalive gap of an idle peer in a quiet room. */
export function quietKeepaliveMs(peers: number): number {
  return Math.max(QUIET_KEEPALIVE_MS, keepaliveMs(peers))
}

/** How long a peer whose latest beat promised the next within `every` ms stays alive unheard: three beats. */
export function presenceTtlMs(every: number): number {
  return 3 * every + 1_000
}
/**
 * A holder that has not renewed its lease (listed the task in a presence
 * beat) for this long loses it: four beats, so one lost or late beat never
 * costs a lease, and a dead holder's work restarts within half a minute.
 */
export const LEASE_TIMEOUT_MS = 4 * PRESENCE_INTERVAL_MS + 1_000
/**
 * A holder whose own beats stopped for longer than a lease (its tab was
 * frozen, its laptop slept) may have lost its tasks meanwhile, and may not
 * yet know it: its links are down and gossip brings nothing. It holds the
 * answers of such lapsed work until a sync round in which a neighbour
 * answered (then publishes only what it still holds), and publishes anyway
 * after this long if nobody answers: alone, nobody else can have taken over.
 * A result published late would otherwise overturn its successor's, which
 * the goal's roll-up may already have used (an earlier epoch's result wins).
 */
export const LAPSED_OUTPUT_WAIT_MS = 30_000
/** A lapsed holder with no neighbour yet asks for a sync round this often. */
export const LAPSED_SYNC_RETRY_MS = 2_000
/**
 * A holder that is alive but no longer lists a task it holds has most likely
 * finished it (its result lost on the way, or still syncing): others wait this
 * much longer than a lease before taking the task over. Two anti-entropy
 * rounds fit in it.
 */
export const ORPHAN_GRACE_MS = 40_000
/**
 * A peer that has just started waits this long before it claims anything, so
 * that its view of who is alive (answered beats) is complete enough to rank
 * peers like everyone else does.
 */
export const WARMUP_MS = 1_500

/** A task that failed with this many distinct holders is failed for good. */
export const MAX_TASK_ATTEMPTS = 3
/**
 * Failure error kinds that speak of the failing peer (a wrong key, no
 * network, a spent quota), not of the task: such a failure releases the
 * task but is not one of its MAX_TASK_ATTEMPTS, so three misconfigured
 * executors cannot fail a task for good.
 */
export const PEER_TROUBLE_ERRORS: ReadonlySet<string> = new Set([
  'auth',
  'unreachable',
  'rate-limit',
])
/**
 * A decomposer (scorer) whose LLM call failed to split a goal (score a
 * proposal) tries again this long after its failure, at most
 * MAX_TASK_ATTEMPTS times in all: without it, a goal whose few decomposers
 * or scorers all failed once would wait forever. As long as a sick
 * provider's pause (HEALTH_RETRY_MS): a bad spell usually passes by then.
 */
export const RETRY_FAILED_AFTER_MS = 30_000
/** Decomposers ranked below this propose at once; more proposals add cost, not quality. */
export const MAX_PROPOSALS_PER_GOAL = 3
/** Scorers ranked below this score each proposal at once. */
export const MAX_SCORES_PER_PROPOSAL = 3
/**
 * Lower-ranked decomposers and scorers step in only if a goal still lacks
 * proposals (or a proposal votes) this long after they first saw it.
 */
export const FALLBACK_AFTER_MS = 20_000
