/**
 * Scorer: rates competing splits and judges each of their subgoals (atomic
 * or not, the capability it needs: the accepted split is classified by its
 * voters, plan/classify.ts), decides acceptance (decide.ts), and watches for
 * leaves nobody claims.
 */
import type { FailureRecord, ReannounceRecord, ScoreRecord } from '../protocol/records'
import {
  CAPABILITY_GAP_AFTER_MS,
  FALLBACK_AFTER_MS,
  MAX_SCORES_PER_PROPOSAL,
  QUORUM_VOTES,
  REANNOUNCE_AFTER_MS,
  STAGGER_MS,
} from '../protocol/rules'
import { pendingVotes, quorumReached, type Outlook } from '../plan/acceptance'
import { readyToRollUp, type DerivedGoal } from '../plan/derive'
import type { TaskState } from '../plan/tasks'
import { leaseExpired, maybeClaim, reviewClaims } from './claims'
import { clip, failureFields, isPeerTrouble } from './text'
import { mayWorkOn } from './consent'
import { beginDecide, decideIncomplete, outlook } from './decide'
import { abortWork, freeSlots, startLlm } from './work'
import { derived, roomCapabilities, roomTools } from './room-view'
import { emit } from './emit'
import { isWarm } from './warmth'
import { mayTry } from './retry'
import { since, type PeerState, type RoleLogic, type Work } from './peer'
import type { LlmOutputs } from './llm-contract'
import type { Effects } from './types'
import { eligiblePeers, rankFor } from './view'
import { gapNotice } from './gap-reason'

const scoreRequestId = (proposal: string) => `score:${proposal}`

interface ScoreCandidate {
  goal: DerivedGoal
  proposal: DerivedGoal['proposals'][number]
  /** this peer's rendezvous rank among the proposal's scorers */
  rank: number
  seenAt: number
  /** the proposal's place among its goal's proposals in id order, the same at every scorer */
  turn: number
}

/** The proposals of `goal` this peer should score now (it is ranked for them, or steps in). */
function scoreCandidates(peer: PeerState, goal: DerivedGoal, now: number): ScoreCandidate[] {
  const me = peer.config.peerId
  if (!mayWorkOn(peer.config.consent, goal) || quorumReached(goal)) return []
  const found: ScoreCandidate[] = []
  let expected: Outlook | null = null // computed once, when first needed
  const ids = goal.proposals.map((proposal) => proposal.id).sort()
  for (const proposal of goal.proposals) {
    const votes = goal.votes.get(proposal.id) ?? []
    if (peer.work.has(scoreRequestId(proposal.id)) || votes.some((vote) => vote.from === me))
      continue
    if (!mayTry(peer, proposal.id, 'score', now)) continue
    const eligible = eligiblePeers(
      peer.view,
      { peerId: me, eligible: peer.healthy },
      { role: 'scorer' },
      now,
    )
    const rank = rankFor(proposal.id, me, eligible)
    const seenAt = since(peer, `seen:${proposal.id}`, now)
    // step in when the first-ranked scorers have not given two votes after a while,
    // or at once when they have all voted or failed and two votes are still missing
    const fallback =
      votes.length < QUORUM_VOTES &&
      (now - seenAt >= FALLBACK_AFTER_MS ||
        pendingVotes(proposal.id, votes, (expected ??= outlook(peer, goal, now))) === 0)
    if (rank < 0 || (rank >= MAX_SCORES_PER_PROPOSAL && !fallback)) continue
    found.push({ goal, proposal, rank, seenAt, turn: ids.indexOf(proposal.id) })
  }
  return found
}

/**
 * The order a scorer takes proposals in while slots are scarce: first those
 * for which it is one of the QUORUM_VOTES best-ranked scorers, then the
 * rest; each group by the proposal's place in its goal in id order (every
 * goal's first proposal, then every goal's second…), then in order of
 * arrival. A goal is decided as soon as any one of its proposals has a
 * quorum, so the scorers should put their votes on the same proposal of
 * each goal. Id order is the same at every scorer, where arrival order is
 * not: proposals of a goal arrive within milliseconds of each other, in a
 * different order at each scorer. By arrival alone the votes spread over a
 * goal's proposals (one 16-peer run gave 42 votes for 13 goals where the
 * orchestrator's shared queue gave 27), and each level took longer to decide.
 * A third vote waits for a slot nobody needs. (By rank first, the
 * second-ranked scorer took a proposal only after every proposal it ranked
 * first for: at 11 peers the run took 0.65 s longer.)
 */
export function scoreOrder(
  a: Pick<ScoreCandidate, 'rank' | 'seenAt' | 'turn'>,
  b: Pick<ScoreCandidate, 'rank' | 'seenAt' | 'turn'>,
): number {
  const extra = (c: { rank: number }) => Number(c.rank >= QUORUM_VOTES)
  return extra(a) - extra(b) || a.turn - b.turn || a.seenAt - b.seenAt || a.rank - b.rank
}

/** Start score calls while slots are free, in scoreOrder. */
function scoreProposals(
  peer: PeerState,
  fx: Effects,
  candidates: ScoreCandidate[],
  now: number,
): void {
  candidates.sort(scoreOrder)
  for (const { goal, proposal } of candidates) {
    if (freeSlots(peer) <= 0) return
    const work: Work = {
      requestId: scoreRequestId(proposal.id),
      kind: 'score',
      subject: proposal.id,
      since: now,
      started: false,
      llm: null,
    }
    startLlm(peer, fx, work, {
      kind: 'score',
      path: goal.path,
      subgoals: proposal.subgoals,
      rationale: proposal.rationale,
      depth: goal.depth + 1,
      maxDepth: goal.maxDepth,
      // so that a leaf names a capability someone offers, where it can (issue 43)
      roomCapabilities: roomCapabilities(peer, now),
      // a subgoal that needs one of the room's tool groups names it (issue 57)
      ...roomTools(peer, now),
    })
  }
}

/**
 * A ready leaf (or roll-up) unclaimed for REANNOUNCE_AFTER_MS is re-announced
 * once; still unclaimed CAPABILITY_GAP_AFTER_MS later, it fails as a
 * capability gap. Scorers share this watch in rendezvous order. A task whose
 * holder's lease ran out counts as unclaimed: if nobody left can take it
 * over (the others failed it), it would otherwise wait forever.
 */
function watchUnclaimed(peer: PeerState, fx: Effects, task: TaskState, now: number): void {
  if (task.gap) return
  if (task.status !== 'open' && !(task.status === 'claimed' && leaseExpired(peer, task, now)))
    return
  const epoch = task.epoch + 1
  const me = peer.config.peerId
  const eligible = eligiblePeers(peer.view, { peerId: me, eligible: true }, { role: 'scorer' }, now)
  const turn = Math.max(0, rankFor(`watch:${task.id}`, me, eligible)) * STAGGER_MS
  const reannounced = peer.plan.taskRecords(task.id).reannounces.some((r) => r.epoch === epoch)
  if (!reannounced) {
    if (now - since(peer, `unclaimed:${task.id}:${epoch}`, now) >= REANNOUNCE_AFTER_MS + turn) {
      emit<ReannounceRecord>(peer, fx, { kind: 'reannounce', task: task.id, epoch, at: now })
    }
    return
  }
  if (now - since(peer, `reannounced:${task.id}:${epoch}`, now) >= CAPABILITY_GAP_AFTER_MS + turn) {
    emit<FailureRecord>(peer, fx, {
      kind: 'failure',
      subject: task.id,
      stage: 'capability-gap',
      epoch,
      index: -1,
      // why nobody took it, as this scorer hears the room: a gap only when it is one
      ...gapNotice(peer, task, now),
      usage: null,
    })
  }
}

export const scorer: RoleLogic = {
  onLlm(peer, fx, work, outcome) {
    const proposal = peer.plan.proposals.get(work.subject)
    if (!proposal) return
    if (outcome.ok && outcome.kind === 'score') {
      const value = outcome.value as LlmOutputs['score']
      emit<ScoreRecord>(peer, fx, {
        kind: 'score',
        goal: proposal.goal,
        proposal: proposal.id,
        score: Math.min(1, Math.max(0, value.score)),
        notes: clip(value.notes, 600),
        // one per subgoal (the LLM layer checks the count); only the two fields the record holds
        judgements: value.judgements.map((j) => ({
          atomic: j.atomic,
          capability: j.capability,
          // the tool group it needs (issue 57): absent when none
          ...(j.tool !== undefined ? { tool: j.tool } : {}),
        })),
        usage: outcome.usage,
      })
    } else if (!isPeerTrouble(outcome)) {
      // (a peer's own trouble publishes nothing: it pauses, then tries again)
      emit<FailureRecord>(peer, fx, {
        kind: 'failure',
        subject: proposal.id,
        stage: 'score',
        epoch: 0,
        index: -1,
        ...failureFields(outcome),
        usage: outcome.usage,
      })
    }
  },

  reconcile(peer, fx, now) {
    const plan = derived(peer)
    const warm = isWarm(peer, now)
    for (const work of [...peer.work.values()]) {
      if (work.kind !== 'score') continue
      const goal = plan.goals.get(peer.plan.proposals.get(work.subject)?.goal ?? '')
      // like an orchestrator, stop scoring once a quorum is in: the slot has better uses
      if (goal?.cancelled || goal?.accept || (goal && quorumReached(goal)))
        abortWork(peer, fx, work, 'the goal was cancelled or has its quorum')
    }
    const toScore: ScoreCandidate[] = []
    for (const goal of plan.goals.values()) {
      if (goal.cancelled) continue
      if (!goal.accept) {
        if (warm && peer.healthy && freeSlots(peer) > 0)
          toScore.push(...scoreCandidates(peer, goal, now))
        // Claim as soon as there is something to decide: the claim's check
        // with the neighbours then runs while the votes come in, not after
        // the quorum, where it sat on every level's critical path (beginDecide
        // keeps holding until the acceptance rule gives an outcome)
        if (goal.proposals.length > 0) maybeClaim(peer, fx, goal.decide, { role: 'scorer' }, now)
      }
      if (warm) {
        for (const slot of goal.slots) {
          if (slot.execute && (slot.status === 'open' || slot.status === 'claimed'))
            watchUnclaimed(peer, fx, slot.execute, now)
        }
        if (readyToRollUp(goal)) watchUnclaimed(peer, fx, goal.rollup, now)
      }
    }
    scoreProposals(peer, fx, toScore, now)
    reviewClaims(
      peer,
      fx,
      now,
      (claim, task) => beginDecide(peer, fx, claim, task, now),
      (task) => task.type === 'decide' && decideIncomplete(derived(peer).goals.get(task.subject)),
    )
  },
}
