/**
 * Who may publish what: rules that decide, from the record set alone, which
 * records of a room member count. Each is a pure function, the same on every
 * peer whatever the arrival order, and each stops one attack a member (who
 * holds the room's secret, so its records are sealed and signed) could
 * otherwise make. PROTOCOL.md §5.10 lists them with the attacks they stop.
 *
 * They are kept apart from derive.ts and tasks.ts, which call them, so the
 * rules can be read, tested and changed on their own.
 */
import { compareRank } from '../protocol/hash'
import type { PlanMembership } from './members'
import type {
  AcceptRecord,
  CancelRecord,
  ClaimRecord,
  FailureRecord,
  ReannounceRecord,
  ResultRecord,
} from '../protocol/records'

/**
 * Whether a record by PeerId `from` speaks for the author of a root goal
 * (PeerId `author`): the rule for cancels and steering.
 */
export type ActsFor = (from: string, author: string) => boolean

/** Without a membership: only the very PeerId that wrote the goal. */
export const samePeer: ActsFor = (from, author) => from === author

/**
 * With the room's membership (since version 7): any PeerId that acts for
 * the same member as the goal's author, so a person steers a goal from any
 * of their tabs and agents. Two PeerIds bound to no member are one author
 * only if they are the same PeerId.
 */
export function sameMember(membership: PlanMembership): ActsFor {
  return (from, author) => {
    if (from === author) return true
    const member = membership.memberOf(from)
    return member !== undefined && member === membership.memberOf(author)
  }
}

/** Who speaks for a root goal's author, the member it acts for (if known), and whether it was removed. */
export interface GoalAuthors {
  actsFor: ActsFor
  memberOf: (peerId: string) => string | undefined
  /** the PeerId acts for a removed member (its unsettled goals stop, derive.ts) */
  removed: (peerId: string) => boolean
}

/** With a membership, a member's PeerIds speak for each other; without, each only for itself. */
export function goalAuthors(membership: PlanMembership | undefined): GoalAuthors {
  if (!membership) return { actsFor: samePeer, memberOf: () => undefined, removed: () => false }
  return {
    actsFor: sameMember(membership),
    memberOf: (peerId) => membership.memberOf(peerId),
    removed: (peerId) => {
      const member = membership.memberOf(peerId)
      return member !== undefined && !membership.isActive(member)
    },
  }
}

/**
 * A cancel counts only from the author of the goal's root (the person who
 * submitted it, `actsFor`): cancelling a child goal is cancelling part of
 * their plan. Stops: a member cancelling anyone's goal.
 */
export function countedCancels(
  cancels: readonly CancelRecord[],
  rootAuthor: string,
  actsFor: ActsFor = samePeer,
): CancelRecord[] {
  return cancels.filter((cancel) => actsFor(cancel.from, rootAuthor))
}

/**
 * Epochs move one step at a time, and never past a finished task. A claim of
 * epoch e counts only if
 * - e = 0, or some counted claim of epoch e − 1 exists (no jumping ahead:
 *   every takeover is a step from an epoch every receiver can see), and
 * - for tasks with a result (execute, rollup): no result by a counted
 *   claimant of an earlier epoch exists (a done task is not taken over).
 * Stops: a member claiming epoch 1000 to own a task outright, and a member
 * replacing a finished result (even the final plan) by claiming a higher
 * epoch and publishing its own.
 *
 * Decide tasks pass no results: their outcome is an accept, and of those the
 * earliest epoch's counts (earliestAccept).
 */
export function countedClaims(
  claims: readonly ClaimRecord[],
  results: readonly ResultRecord[] = [],
): ClaimRecord[] {
  const byEpoch = new Map<number, ClaimRecord[]>()
  for (const claim of claims) {
    const list = byEpoch.get(claim.epoch)
    if (list) list.push(claim)
    else byEpoch.set(claim.epoch, [claim])
  }
  const counted: ClaimRecord[] = []
  for (let epoch = 0; byEpoch.has(epoch); epoch++) {
    const earlierResult = results.some(
      (result) =>
        result.epoch < epoch &&
        counted.some((claim) => claim.from === result.from && claim.epoch === result.epoch),
    )
    if (earlierResult) break
    counted.push(...byEpoch.get(epoch)!)
  }
  return counted
}

/**
 * Of a goal's authorised accepts whose evidence holds, the one of the
 * EARLIEST epoch counts (then the best-ranked author, then the lowest id): a
 * decision, once made and seen, stands. A successor that takes the decide
 * task over publishes an accept only when none counts (it finishes the
 * classification instead), so honest takeovers are unaffected; only the rare
 * accept lost in transit and later found can be replaced, by the earlier one.
 * Stops: a member taking the decide task over one epoch up and swapping the
 * accepted split for its own choice with a `deadline` accept citing two votes.
 */
export function earliestAccept(
  decideTask: string,
  accepts: readonly AcceptRecord[],
  isAuthorised: (accept: AcceptRecord) => boolean,
): AcceptRecord | null {
  let best: AcceptRecord | null = null
  for (const accept of accepts) {
    if (!isAuthorised(accept)) continue
    if (
      best === null ||
      accept.epoch < best.epoch ||
      (accept.epoch === best.epoch &&
        (compareRank(decideTask, accept.from, best.from) < 0 ||
          (compareRank(decideTask, accept.from, best.from) === 0 && accept.id < best.id)))
    ) {
      best = accept
    }
  }
  return best
}

/**
 * A capability-gap failure counts only if it names the epoch that is open now
 * (one past the highest counted claim) and that epoch was re-announced first
 * (§5.6): the watch ran its course. Stops: a member failing any task, or a
 * whole root goal, with one gap notice at a high epoch or without the
 * re-announce every peer could see.
 */
export function gapCounts(
  gap: FailureRecord,
  currentEpoch: number,
  reannounces: readonly ReannounceRecord[],
): boolean {
  return (
    gap.stage === 'capability-gap' &&
    gap.epoch === currentEpoch + 1 &&
    reannounces.some((r) => r.epoch === gap.epoch && r.task === gap.subject)
  )
}

/**
 * A presence beat's `holding` of a task counts for `peer` only if `peer`
 * really claimed the task (a claim of it is in the record set). Until that
 * claim arrives, the beat may count for at most `graceMs` since this peer
 * first saw it, as the claim may still be on its way by sync. Stops: a member
 * blocking a task forever by listing it in fake `holding`s.
 */
export function holdingCounts(
  claims: readonly ClaimRecord[],
  peer: string,
  firstSeenAt: number,
  now: number,
  graceMs: number,
): boolean {
  if (claims.some((claim) => claim.from === peer)) return true
  return now - firstSeenAt < graceMs
}
