/**
 * The acceptance rule, in one place. Two sides must agree on it: the
 * decider (roles/scorer.ts) picks the split to accept from the votes it
 * has seen, and every peer (plan/derive.ts) checks that a published accept
 * holds on the votes it cites. Both call this module.
 *
 * The rule (docs/PROTOCOL.md): the first proposal with scores of at least
 * QUORUM_SCORE from QUORUM_VOTES distinct scorers is accepted (basis
 * 'quorum'); after the deadline, the best mean among proposals with at
 * least QUORUM_VOTES votes (basis 'deadline'). One vote never accepts.
 * Ties: the higher mean, then the lower proposal id.
 */
import { MAX_VOTES } from '../protocol/limits'
import type { AcceptRecord, ScoreRecord } from '../protocol/records'
import { QUORUM_SCORE, QUORUM_VOTES } from '../protocol/rules'

/** The mean of a proposal's counted votes (0 with none). */
export function meanScore(votes: readonly ScoreRecord[]): number {
  if (votes.length === 0) return 0
  return votes.reduce((sum, vote) => sum + vote.score, 0) / votes.length
}

/** What a decider would accept: the proposal, on which basis, citing which votes. */
export interface Candidate {
  proposal: string
  basis: AcceptRecord['basis']
  votes: string[]
}

/** The goal as the rule needs it: its proposals and their counted votes (one per scorer). */
export interface Ballot {
  proposals: readonly { id: string }[]
  votes: ReadonlyMap<string, ScoreRecord[]>
}

/** The acceptance rule, applied to this peer's view of the votes. */
export function acceptCandidate(goal: Ballot, deadlinePassed: boolean): Candidate | null {
  let best: { proposal: string; mean: number; quorum: boolean; votes: ScoreRecord[] } | null = null
  for (const proposal of goal.proposals) {
    const votes = goal.votes.get(proposal.id) ?? []
    if (votes.length < QUORUM_VOTES) continue
    const quorum = votes.filter((vote) => vote.score >= QUORUM_SCORE).length >= QUORUM_VOTES
    if (!quorum && !deadlinePassed) continue
    const mean = meanScore(votes)
    const better =
      best === null ||
      (quorum && !best.quorum) ||
      (quorum === best.quorum &&
        (mean > best.mean || (mean === best.mean && proposal.id < best.proposal)))
    if (better) best = { proposal: proposal.id, mean, quorum, votes }
  }
  if (!best) return null
  return {
    proposal: best.proposal,
    basis: best.quorum ? 'quorum' : 'deadline',
    votes: best.votes.map((vote) => vote.id).slice(0, MAX_VOTES),
  }
}

/** Does an accept's evidence hold: cited votes present, for its proposal, from distinct scorers? */
export function acceptHolds(
  accept: AcceptRecord,
  votes: ReadonlyMap<string, ScoreRecord[]>,
): boolean {
  const counted = votes.get(accept.proposal)
  if (!counted) return false
  const cited = new Set(accept.votes)
  const scorers = new Set<string>()
  const qualifying = new Set<string>()
  for (const vote of counted) {
    if (!cited.has(vote.id)) continue
    scorers.add(vote.from)
    if (vote.score >= QUORUM_SCORE) qualifying.add(vote.from)
  }
  if (accept.basis === 'quorum') return qualifying.size >= QUORUM_VOTES
  return scorers.size >= QUORUM_VOTES
}
