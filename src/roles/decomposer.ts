/**
 * Decomposer: proposes a split of every open goal into 2 to 6 subgoals.
 *
 * The MAX_PROPOSALS_PER_GOAL first decomposers in rendezvous order for a
 * goal propose at once; the others step in only if the goal still has too
 * few proposals after FALLBACK_AFTER_MS (the first ones died or failed).
 */
import type { FailureRecord, ProposalRecord } from '../protocol/records'
import { MAX_RATIONALE, MAX_SUBGOAL_TEXT } from '../protocol/limits'
import { FALLBACK_AFTER_MS, MAX_PROPOSALS_PER_GOAL, QUORUM_VOTES } from '../protocol/rules'
import { pendingProposals } from '../plan/acceptance'
import type { DerivedGoal } from '../plan/derive'
import { clip, failureFields, isPeerTrouble } from './text'
import { mayWorkOn } from './consent'
import { abortWork, freeSlots, startLlm } from './work'
import { derived, roomCapabilities, roomTools } from './room-view'
import { emit } from './emit'
import { mayTry } from './retry'
import { isWarm } from './warmth'
import { since, type PeerState, type RoleLogic } from './peer'
import type { Effects } from './types'
import { eligiblePeers, rankFor } from './view'

function wantsProposal(peer: PeerState, goal: DerivedGoal, now: number): boolean {
  const me = peer.config.peerId
  return (
    !goal.cancelled &&
    !goal.paused &&
    !goal.accept &&
    !peer.work.has(`decompose:${goal.id}`) &&
    !goal.proposals.some((proposal) => proposal.from === me) &&
    mayWorkOn(peer.config.consent, goal) &&
    mayTry(peer, goal.id, 'decompose', now)
  )
}

/** Have the first-ranked decomposers all proposed or failed (plan/acceptance.ts)? */
function noProposalComing(peer: PeerState, goal: DerivedGoal, live: number): boolean {
  const failed = peer.plan
    .failures(goal.id)
    .filter((failure) => failure.stage === 'decompose')
    .map((failure) => failure.from)
  const outlook = {
    proposals: Math.min(MAX_PROPOSALS_PER_GOAL, live),
    decomposeFailures: new Set(failed),
  }
  return pendingProposals(goal.proposals, outlook) === 0
}

/** A goal this decomposer may propose for, and its rank among the room's decomposers for it. */
interface Candidate {
  goal: DerivedGoal
  rank: number
}

/**
 * The order a decomposer takes goals in while slots are scarce: first those
 * it ranks higher for, then in the plan's goal order. When a level opens
 * more goals than a decomposer has slots (nine goals at depth 2 of a
 * three-way plan, four slots), every decomposer taking goals in one shared
 * order spends its slots on the same goals, and the last goals get their
 * first proposal only in the third round (issue 46: 4.06 → 7.06 s in the
 * bench's virtual time). By rank, each goal's first-ranked decomposer takes
 * it in the first round, and a goal is decided once one proposal has a
 * quorum.
 */
function proposeOrder(a: Candidate, b: Candidate): number {
  return a.rank - b.rank
}

function candidate(
  peer: PeerState,
  goal: DerivedGoal,
  eligible: readonly string[],
  now: number,
): Candidate | undefined {
  const rank = rankFor(goal.id, peer.config.peerId, eligible)
  // step in when the first-ranked decomposers have not given two proposals after a
  // while, or at once when they have all proposed or failed and two are still missing
  const fallback =
    goal.proposals.length < QUORUM_VOTES &&
    // (after a veto the wait starts again: a new round, not one late since the goal came)
    (now - since(peer, `seen:${goal.id}:${goal.vetoes.length}`, now) >= FALLBACK_AFTER_MS ||
      noProposalComing(peer, goal, eligible.length))
  if (rank < 0 || (rank >= MAX_PROPOSALS_PER_GOAL && !fallback)) return undefined
  return { goal, rank }
}

function propose(peer: PeerState, fx: Effects, goal: DerivedGoal, now: number): void {
  startLlm(
    peer,
    fx,
    {
      requestId: `decompose:${goal.id}`,
      kind: 'decompose',
      subject: goal.id,
      since: now,
      started: false,
      llm: null,
    },
    {
      kind: 'decompose',
      path: goal.path,
      depth: goal.depth,
      maxDepth: goal.maxDepth,
      // what the room's executors can do, so that the split fits them (issue 43)
      roomCapabilities: roomCapabilities(peer, now),
      // the tool groups its executors announce (issue 57): absent when none
      ...roomTools(peer, now),
      // the author's vetoes of earlier splits, so they are not proposed again (issue 27)
      ...(goal.vetoes.length > 0
        ? {
            vetoed: goal.vetoes.map(({ verdict, proposal }) => ({
              note: verdict.note,
              subgoals: proposal?.subgoals.map((subgoal) => subgoal.text) ?? [],
            })),
          }
        : {}),
    },
  )
}

export const decomposer: RoleLogic = {
  onLlm(peer, fx, work, outcome) {
    if (outcome.ok && outcome.kind === 'decompose') {
      const value = outcome.value as ProposalRecord['subgoals'] extends infer S
        ? { subgoals: S; rationale: string }
        : never
      emit<ProposalRecord>(peer, fx, {
        kind: 'proposal',
        goal: work.subject,
        subgoals: value.subgoals.map((subgoal) => ({
          text: clip(subgoal.text, MAX_SUBGOAL_TEXT),
          dependsOn: [...subgoal.dependsOn],
        })),
        rationale: clip(value.rationale, MAX_RATIONALE),
        usage: outcome.usage,
      })
    } else if (!isPeerTrouble(outcome)) {
      // (a peer's own trouble publishes nothing: it pauses, then tries again)
      emit<FailureRecord>(peer, fx, {
        kind: 'failure',
        subject: work.subject,
        stage: 'decompose',
        epoch: 0,
        index: -1,
        ...failureFields(outcome),
        usage: outcome.usage,
      })
    }
  },

  reconcile(peer, fx, now) {
    const goals = derived(peer).goals
    for (const work of [...peer.work.values()]) {
      const goal = goals.get(work.subject)
      // a root goal that no longer counts (goal-limits.ts: a backdated goal of its
      // author took its place) is not worth the rest of the call
      if (!goal || goal.cancelled || goal.accept)
        abortWork(peer, fx, work, 'the goal was cancelled, decided or held by the limits')
    }
    if (!isWarm(peer, now) || !peer.healthy || freeSlots(peer) <= 0) return
    const eligible = eligiblePeers(
      peer.view,
      { peerId: peer.config.peerId, eligible: true },
      { role: 'decomposer' },
      now,
    )
    const found: Candidate[] = []
    for (const goal of goals.values()) {
      const c = wantsProposal(peer, goal, now) ? candidate(peer, goal, eligible, now) : undefined
      if (c) found.push(c)
    }
    // (a stable sort: within a rank, the plan's goal order)
    for (const { goal } of found.sort(proposeOrder)) {
      if (freeSlots(peer) <= 0) return
      propose(peer, fx, goal, now)
    }
  },
}
