/**
 * Scorer: rates competing splits, decides acceptance, classifies the
 * accepted split's subgoals, and watches for leaves nobody claims.
 *
 * Deciding a goal is an exclusive task (see claims.ts): one scorer at a time
 * holds it, so one accept and one classification per subgoal are published
 * however many scorers there are, and every child goal is created once.
 */
import type { LlmOutcome } from './llm-contract'
import type {
  AcceptRecord,
  FailureRecord,
  NodeRecord,
  ReannounceRecord,
  ScoreRecord,
} from '../protocol/records'
import {
  ACCEPT_DEADLINE_MS,
  CAPABILITY_GAP_AFTER_MS,
  FALLBACK_AFTER_MS,
  MAX_PROPOSALS_PER_GOAL,
  MAX_SCORES_PER_PROPOSAL,
  QUORUM_VOTES,
  REANNOUNCE_AFTER_MS,
  STAGGER_MS,
} from '../protocol/rules'
import { acceptCandidate, pendingVotes, type Outlook } from '../plan/acceptance'
import { readyToRollUp, type DerivedGoal } from '../plan/derive'
import type { TaskState } from '../plan/tasks'
import { isHolder, leaseExpired, maybeClaim, reviewClaims } from './claims'
import { clip, failureFields, isPeerTrouble } from './text'
import { mayWorkOn } from './consent'
import {
  abortWork,
  derived,
  emit,
  freeSlots,
  isWarm,
  mayTry,
  since,
  startLlm,
  type PeerState,
  type RoleLogic,
  type Work,
} from './peer'
import type { Effects } from './types'
import { eligiblePeers, rankFor } from './view'

function deadlinePassed(peer: PeerState, goal: DerivedGoal, now: number): boolean {
  if (goal.proposals.length === 0) return false
  return now - since(peer, `proposals:${goal.id}`, now) >= ACCEPT_DEADLINE_MS
}

/**
 * What this peer expects may still arrive for the goal (plan/acceptance.ts):
 * from its own view of who is alive, so it only decides when to accept.
 */
function outlook(peer: PeerState, goal: DerivedGoal, now: number): Outlook {
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

function decideIncomplete(goal: DerivedGoal | undefined): boolean {
  if (!goal || goal.cancelled) return false
  if (!goal.accept) return true
  return goal.slots.some((slot) => !slot.node && !slot.classifyFailure)
}

const scoreRequestId = (proposal: string) => `score:${proposal}`

interface ScoreCandidate {
  goal: DerivedGoal
  proposal: DerivedGoal['proposals'][number]
  /** this peer's rendezvous rank among the proposal's scorers */
  rank: number
  seenAt: number
}

/** The proposals of `goal` this peer should score now (it is ranked for them, or steps in). */
function scoreCandidates(peer: PeerState, goal: DerivedGoal, now: number): ScoreCandidate[] {
  const me = peer.config.peerId
  if (!mayWorkOn(peer.config.consent, goal)) return []
  const found: ScoreCandidate[] = []
  let expected: Outlook | null = null // computed once, when first needed
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
    found.push({ goal, proposal, rank, seenAt })
  }
  return found
}

/**
 * Start score calls while slots are free, in order of this peer's rank for
 * the proposal, then of arrival: the two best-ranked scorers of a proposal
 * both put it first, so its QUORUM_VOTES votes come in one call's time even
 * when slots are scarce, and a third vote waits for a slot nobody needs.
 */
function scoreProposals(
  peer: PeerState,
  fx: Effects,
  candidates: ScoreCandidate[],
  now: number,
): void {
  candidates.sort((a, b) => a.rank - b.rank || a.seenAt - b.seenAt)
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
    })
  }
}

/** The decider's work: publish the accept if none counts yet, then classify every subgoal. */
function beginDecide(
  peer: PeerState,
  fx: Effects,
  claim: Work,
  task: TaskState,
  now: number,
): void {
  let goal = derived(peer).goals.get(task.subject)
  if (!goal) return
  if (!goal.accept) {
    const chosen = candidate(peer, goal, now)
    if (!chosen) {
      peer.work.set(claim.requestId, claim) // keep holding; decide when the votes are in
      return
    }
    emit<AcceptRecord>(peer, fx, {
      kind: 'accept',
      goal: goal.id,
      ...chosen,
      epoch: claim.epoch!,
    })
    goal = derived(peer).goals.get(task.subject)!
  }
  for (const slot of goal.slots) {
    if (slot.node || slot.classifyFailure) continue
    const requestId = `classify:${task.id}:${claim.epoch}:${slot.index}`
    if (peer.work.has(requestId)) continue
    const work: Work = {
      requestId,
      kind: 'classify',
      subject: goal.id,
      task: task.id,
      epoch: claim.epoch!,
      index: slot.index,
      since: now,
      started: false,
      llm: null,
    }
    startLlm(peer, fx, work, {
      kind: 'classify',
      path: goal.path,
      subgoal: slot.text,
      siblings: goal.slots.filter((other) => other !== slot).map((other) => other.text),
      depth: goal.depth + 1,
      maxDepth: goal.maxDepth,
    })
  }
}

function onClassified(peer: PeerState, fx: Effects, work: Work, outcome: LlmOutcome): void {
  const plan = derived(peer)
  const task = plan.tasks.get(work.task!)
  const goal = plan.goals.get(work.subject)
  const slot = goal?.slots[work.index!]
  if (!task || !goal || !slot || !isHolder(peer, task, work.epoch) || slot.node) {
    fx.events.push({
      type: 'output-dropped',
      request: work.requestId,
      kind: 'classify',
      why: 'no longer deciding',
    })
    return
  }
  if (!outcome.ok || outcome.kind !== 'classify') {
    // A peer's own trouble (key, network, quota) says nothing about the
    // subgoal: give the decide task back (index -1) rather than fail it.
    emit<FailureRecord>(peer, fx, {
      kind: 'failure',
      subject: task.id,
      stage: 'classify',
      epoch: work.epoch!,
      index: isPeerTrouble(outcome) ? -1 : slot.index,
      ...failureFields(outcome),
      usage: outcome.usage,
    })
    return
  }
  const value = outcome.value as {
    atomic: boolean
    capability: NodeRecord['capability']
    reason: string
  }
  const atCap = goal.depth + 1 >= goal.maxDepth
  emit<NodeRecord>(peer, fx, {
    kind: 'node',
    goal: goal.id,
    proposal: goal.accepted!.id,
    index: slot.index,
    atomic: atCap || value.atomic,
    capped: atCap && !value.atomic,
    capability: value.capability,
    reason: clip(value.reason, 400),
    epoch: work.epoch!,
    usage: outcome.usage,
  })
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
      errorKind: 'none',
      detail: 'nobody present claimed it: no live executor has the capability it needs',
      usage: null,
    })
  }
}

export const scorer: RoleLogic = {
  onLlm(peer, fx, work, outcome) {
    if (work.kind === 'classify') return onClassified(peer, fx, work, outcome)
    const proposal = peer.plan.proposals.get(work.subject)
    if (!proposal) return
    if (outcome.ok && outcome.kind === 'score') {
      const value = outcome.value as { score: number; notes: string }
      emit<ScoreRecord>(peer, fx, {
        kind: 'score',
        goal: proposal.goal,
        proposal: proposal.id,
        score: Math.min(1, Math.max(0, value.score)),
        notes: clip(value.notes, 600),
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
      if (goal?.cancelled || goal?.accept)
        abortWork(peer, fx, work, 'the goal was cancelled or decided')
    }
    const toScore: ScoreCandidate[] = []
    for (const goal of plan.goals.values()) {
      if (goal.cancelled) continue
      if (!goal.accept) {
        if (warm && peer.healthy && freeSlots(peer) > 0)
          toScore.push(...scoreCandidates(peer, goal, now))
        if (candidate(peer, goal, now)) {
          maybeClaim(peer, fx, goal.decide, { role: 'scorer' }, now)
        }
      } else if (decideIncomplete(goal)) {
        // the holder went silent mid-classification: take over
        maybeClaim(peer, fx, goal.decide, { role: 'scorer' }, now)
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
