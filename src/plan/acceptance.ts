/**
 * The acceptance rule, in one place. Two sides must agree on it: the
 * decider (roles/scorer.ts) picks the split to accept from the votes it
 * has seen, and every peer (plan/derive.ts) checks that a published accept
 * holds on the votes it cites. Both call this module.
 *
 * The rule (docs/PROTOCOL.md §5.2): the first proposal with scores of at
 * least QUORUM_SCORE from QUORUM_VOTES distinct scorers is accepted (basis
 * 'quorum'); once no vote that can still come could change the outcome, the
 * best mean among proposals with at least QUORUM_VOTES votes (basis
 * 'settled'); after the deadline, the same best mean whatever may still
 * come (basis 'deadline'). One vote never accepts. Ties: the higher mean,
 * then the lower proposal id.
 *
 * Which votes can still come is the decider's estimate (its Outlook, from
 * its own view of who is alive): it decides WHEN an accept is published,
 * never WHICH accept counts. That is a pure function of the record set
 * (plan/derive.ts, authority.ts): a `settled` accept needs the same
 * evidence as a `deadline` one, and the earliest authorised accept stands.
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
  proposals: readonly { id: string; from: string }[]
  votes: ReadonlyMap<string, ScoreRecord[]>
}

/**
 * What the decider expects may still arrive for a goal: from how many
 * scorers each proposal gets a vote without a fallback (the live, healthy
 * scorers, at most MAX_SCORES_PER_PROPOSAL), how many proposals the goal
 * gets (the live decomposers, at most MAX_PROPOSALS_PER_GOAL), and who has
 * given up on a proposal (score failures) or on the goal (decompose
 * failures): those retry only after RETRY_FAILED_AFTER_MS, and the
 * deadline covers that.
 */
export interface Outlook {
  votesPerProposal: number
  proposals: number
  /** per proposal id: scorers whose call to score it failed */
  scoreFailures: ReadonlyMap<string, ReadonlySet<string>>
  /** decomposers whose call to split the goal failed */
  decomposeFailures: ReadonlySet<string>
}

/** Votes that may still come for a proposal, as the outlook sees it. */
export function pendingVotes(
  proposal: string,
  votes: readonly ScoreRecord[],
  outlook: Outlook,
): number {
  const failed = outlook.scoreFailures.get(proposal)
  let done = votes.length
  if (failed) for (const scorer of failed) if (!votes.some((v) => v.from === scorer)) done++
  return Math.max(0, outlook.votesPerProposal - done)
}

/** Proposals that may still come, as the outlook sees it. */
export function pendingProposals(
  proposals: readonly { id: string; from: string }[],
  outlook: Pick<Outlook, 'proposals' | 'decomposeFailures'>,
): number {
  let done = proposals.length
  for (const decomposer of outlook.decomposeFailures)
    if (!proposals.some((p) => p.from === decomposer)) done++
  return Math.max(0, outlook.proposals - done)
}

/**
 * Is the outcome settled: every proposal the outlook expects is in, no
 * proposal can still reach a quorum, and no vote still to come could move
 * another proposal past the leader (the best mean among proposals with
 * QUORUM_VOTES votes)? Bounds: each pending vote is somewhere in [0, 1].
 */
export function settled(goal: Ballot, outlook: Outlook): boolean {
  if (pendingProposals(goal.proposals, outlook) > 0) return false
  type Range = { id: string; low: number; high: number; eligible: boolean; counted: number }
  const ranges: Range[] = []
  for (const proposal of goal.proposals) {
    const votes = goal.votes.get(proposal.id) ?? []
    const pending = pendingVotes(proposal.id, votes, outlook)
    const qualifying = votes.filter((vote) => vote.score >= QUORUM_SCORE).length
    if (qualifying + pending >= QUORUM_VOTES) return false // a quorum may still come
    const sum = votes.reduce((total, vote) => total + vote.score, 0)
    const n = votes.length + pending
    ranges.push({
      id: proposal.id,
      low: n === 0 ? 0 : sum / n,
      high: n === 0 ? 0 : (sum + pending) / n,
      eligible: n >= QUORUM_VOTES,
      counted: votes.length,
    })
  }
  let leader: Range | null = null
  for (const range of ranges) {
    if (range.counted < QUORUM_VOTES) continue
    const mean = meanScore(goal.votes.get(range.id) ?? [])
    const leaderMean = leader ? meanScore(goal.votes.get(leader.id) ?? []) : -1
    if (!leader || mean > leaderMean || (mean === leaderMean && range.id < leader.id))
      leader = range
  }
  if (!leader) return false
  const floor = leader.low
  return ranges.every(
    (other) =>
      other === leader ||
      !other.eligible ||
      other.high < floor ||
      (other.high === floor && other.id > leader.id),
  )
}

/**
 * The acceptance rule, applied to this peer's view of the votes: quorum at
 * once; the best mean once the outcome is settled (when an outlook is
 * given) or the deadline has passed.
 */
export function acceptCandidate(
  goal: Ballot,
  deadlinePassed: boolean,
  outlook?: Outlook,
): Candidate | null {
  const quorum = bestCandidate(goal, deadlinePassed)
  if (quorum || deadlinePassed || !outlook || !settled(goal, outlook)) return quorum
  const best = bestCandidate(goal, true)
  return best && { ...best, basis: 'settled' }
}

function bestCandidate(goal: Ballot, deadlinePassed: boolean): Candidate | null {
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

/**
 * Has some proposal a quorum? Then the goal's outcome is a quorum accept
 * whatever votes still come, and further score calls for it are wasted.
 */
export function quorumReached(goal: Ballot): boolean {
  return bestCandidate(goal, false) !== null
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
  // 'settled' and 'deadline': the same evidence, which no later record can undo
  return scorers.size >= QUORUM_VOTES
}
