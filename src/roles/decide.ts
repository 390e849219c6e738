/**
 * Deciding a goal, the scorers' exclusive task (claims.ts): pick the split
 * to accept by the acceptance rule (plan/acceptance.ts) and publish the
 * accept. One scorer at a time holds the task, so one accept is published
 * however many scorers there are. The accepted split's subgoals need no call
 * of their own: its voters judged each of them in the call that scored it,
 * and every peer classifies them from the accept's cited votes
 * (plan/classify.ts; docs/PROTOCOL.md §5.1, since version 7).
 *
 * The decider claims at the goal's first proposal, so its check with the
 * neighbours (claims.ts) runs while the votes come in; it publishes only
 * once the check has passed (beginDecide).
 */
import type { AcceptRecord } from '../protocol/records'
import {
  ACCEPT_DEADLINE_MS,
  MAX_PROPOSALS_PER_GOAL,
  MAX_SCORES_PER_PROPOSAL,
} from '../protocol/rules'
import { acceptCandidate, type Outlook } from '../plan/acceptance'
import type { DerivedGoal } from '../plan/derive'
import type { TaskState } from '../plan/tasks'
import { derived } from './room-view'
import { emit } from './emit'
import { since, type PeerState, type Work } from './peer'
import type { Effects } from './types'
import { eligiblePeers } from './view'

function deadlinePassed(peer: PeerState, goal: DerivedGoal, now: number): boolean {
  if (goal.proposals.length === 0) return false
  // each round after a veto (plan/steering.ts) has its own deadline
  return now - since(peer, `proposals:${goal.id}:${goal.vetoes.length}`, now) >= ACCEPT_DEADLINE_MS
}

/**
 * What this peer expects may still arrive for the goal (plan/acceptance.ts):
 * from its own view of who is alive, so it only decides when to accept.
 */
export function outlook(peer: PeerState, goal: DerivedGoal, now: number): Outlook {
  const me = peer.config.peerId
  const live = (role: 'scorer' | 'decomposer', self: boolean) =>
    eligiblePeers(peer.view, { peerId: me, eligible: self }, { role }, now).length
  const failed = (subject: string, stage: string) =>
    new Set(
      peer.plan
        .failures(subject)
        .filter((failure) => failure.stage === stage)
        .map((failure) => failure.from),
    )
  return {
    votesPerProposal: Math.min(MAX_SCORES_PER_PROPOSAL, live('scorer', peer.healthy)),
    proposals: Math.min(MAX_PROPOSALS_PER_GOAL, live('decomposer', false)),
    scoreFailures: new Map(goal.proposals.map((p) => [p.id, failed(p.id, 'score')])),
    decomposeFailures: failed(goal.id, 'decompose'),
  }
}

/** The acceptance rule as this peer can apply it now. */
function candidate(peer: PeerState, goal: DerivedGoal, now: number) {
  return acceptCandidate(goal, deadlinePassed(peer, goal, now), outlook(peer, goal, now))
}

/** A decide task has work left until its goal has a counted accept (or is cancelled). */
export function decideIncomplete(goal: DerivedGoal | undefined): boolean {
  return goal !== undefined && !goal.cancelled && !goal.accept
}

/** The decider's work, once its claim's check has passed: publish the accept when the votes allow. */
export function beginDecide(
  peer: PeerState,
  fx: Effects,
  claim: Work,
  task: TaskState,
  now: number,
): void {
  const goal = derived(peer).goals.get(task.subject)
  if (!goal || goal.accept) return
  const chosen = candidate(peer, goal, now)
  if (!chosen) {
    peer.work.set(claim.requestId, claim) // keep holding; decide when the votes are in
    return
  }
  emit<AcceptRecord>(peer, fx, { kind: 'accept', goal: goal.id, ...chosen, epoch: claim.epoch! })
}
