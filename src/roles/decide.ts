/**
 * Deciding a goal, the scorers' exclusive task (claims.ts): pick the split
 * to accept by the acceptance rule (plan/acceptance.ts), publish the accept,
 * classify each of its subgoals. One scorer at a time holds the task, so one
 * accept and one classification per subgoal are published however many
 * scorers there are, and every child goal is created once.
 *
 * The decider classifies while its claim is still being checked with its
 * neighbours (prepareDecide), and publishes only once the check has passed
 * (beginDecide): docs/PROTOCOL.md §5.3, "Deciding during the check".
 */
import type { LlmOutcome } from './llm-contract'
import type { AcceptRecord, FailureRecord, NodeRecord, ProposalRecord } from '../protocol/records'
import {
  ACCEPT_DEADLINE_MS,
  MAX_PROPOSALS_PER_GOAL,
  MAX_SCORES_PER_PROPOSAL,
} from '../protocol/rules'
import { acceptCandidate, type Outlook } from '../plan/acceptance'
import type { DerivedGoal } from '../plan/derive'
import type { TaskState } from '../plan/tasks'
import { claimRequestId, isHolder } from './claims'
import { mayPublish } from './lapse'
import { clip, failureFields, isPeerTrouble } from './text'
import {
  abortWork,
  derived,
  emit,
  roomCapabilities,
  since,
  startLlm,
  type PeerState,
  type Work,
} from './peer'
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

/** The acceptance rule as this peer can apply it now (`prefer`: see acceptCandidate). */
function candidate(peer: PeerState, goal: DerivedGoal, now: number, prefer?: string) {
  return acceptCandidate(goal, deadlinePassed(peer, goal, now), outlook(peer, goal, now), prefer)
}

/** The classify calls (not the claim itself) this peer runs or holds for `claim`. */
function classifyCalls(peer: PeerState, claim: Work): Work[] {
  return [...peer.work.values()].filter(
    (work) => work.proposal !== undefined && work.task === claim.task && work.epoch === claim.epoch,
  )
}

/** The proposal this peer has begun to classify for `claim`, if any. */
function classifying(peer: PeerState, claim: Work): string | undefined {
  return classifyCalls(peer, claim)[0]?.proposal
}

export function decideIncomplete(goal: DerivedGoal | undefined): boolean {
  if (!goal || goal.cancelled) return false
  if (!goal.accept) return true
  return goal.slots.some((slot) => !slot.node && !slot.classifyFailure)
}

/**
 * Start the classification calls for `proposal`'s subgoals that are not
 * classified or running yet. The request id names the proposal, so a call
 * for a proposal that was not accepted is never mistaken for one that was.
 */
function startClassify(
  peer: PeerState,
  fx: Effects,
  claim: Work,
  goal: DerivedGoal,
  proposal: ProposalRecord,
  now: number,
): void {
  const accepted = goal.accepted?.id === proposal.id
  const me = peer.config.peerId
  proposal.subgoals.forEach((subgoal, index) => {
    const slot = accepted ? goal.slots[index] : undefined
    if (slot?.node || slot?.classifyFailure) return
    // failed in this epoch already: the next epoch tries it again (plan/classify.ts)
    if (slot?.classifyAttempts.some((f) => f.from === me && f.epoch === claim.epoch)) return
    const requestId = `classify:${claim.task}:${claim.epoch}:${proposal.id}:${index}`
    if (peer.work.has(requestId)) return
    const work: Work = {
      requestId,
      kind: 'classify',
      subject: goal.id,
      task: claim.task,
      epoch: claim.epoch!,
      index,
      proposal: proposal.id,
      since: now,
      started: false,
      llm: null,
    }
    startLlm(peer, fx, work, {
      kind: 'classify',
      path: goal.path,
      subgoal: subgoal.text,
      siblings: proposal.subgoals.filter((_, other) => other !== index).map((s) => s.text),
      depth: goal.depth + 1,
      maxDepth: goal.maxDepth,
      // so that a leaf names a capability someone offers, where it can (issue 43)
      roomCapabilities: roomCapabilities(peer, now),
    })
  })
}

/**
 * While a decide claim waits for its check with the neighbours (claims.ts),
 * classify the split it would accept: the calls take an LLM call's time and
 * the check a sync round trip, so the check no longer sits on every level's
 * critical path. Nothing is published until the check has ended; answers
 * that come first are held (onClassified) and a call for a split that is
 * not the one accepted in the end is dropped (beginDecide).
 */
export function prepareDecide(
  peer: PeerState,
  fx: Effects,
  claim: Work,
  task: TaskState,
  now: number,
) {
  const goal = derived(peer).goals.get(task.subject)
  if (!goal) return
  const chosen =
    goal.accepted?.id ?? classifying(peer, claim) ?? candidate(peer, goal, now)?.proposal
  const proposal = goal.proposals.find((p) => p.id === chosen)
  if (proposal) startClassify(peer, fx, claim, goal, proposal, now)
}

/** The decider's work: publish the accept if none counts yet, then classify every subgoal. */
export function beginDecide(
  peer: PeerState,
  fx: Effects,
  claim: Work,
  task: TaskState,
  now: number,
): void {
  let goal = derived(peer).goals.get(task.subject)
  if (!goal) return
  if (!goal.accept) {
    const chosen = candidate(peer, goal, now, classifying(peer, claim))
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
  const accepted = goal.accepted
  if (!accepted) return // our accept was not kept (an invalid record is never published)
  // calls started while the check ran: drop those for another split, publish held answers
  for (const work of classifyCalls(peer, claim)) {
    if (work.proposal !== accepted.id) abortWork(peer, fx, work, 'another split was accepted')
    else if (work.outcome) {
      peer.work.delete(work.requestId)
      onClassified(peer, fx, work, work.outcome, now)
    }
  }
  startClassify(peer, fx, claim, derived(peer).goals.get(task.subject)!, accepted, now)
}

export function onClassified(
  peer: PeerState,
  fx: Effects,
  work: Work,
  outcome: LlmOutcome,
  now: number,
): void {
  if (!mayPublish(peer, work, now)) {
    // this decider was away: hold the answer until its neighbours had their say (lapse.ts)
    peer.work.set(work.requestId, { ...work, outcome })
    return
  }
  const plan = derived(peer)
  const task = plan.tasks.get(work.task!)
  const goal = plan.goals.get(work.subject)
  if (
    task &&
    isHolder(peer, task, work.epoch) &&
    peer.work.has(claimRequestId(task.id, work.epoch!))
  ) {
    // the claim's check has not ended yet (prepareDecide): hold the answer until it has
    peer.work.set(work.requestId, { ...work, outcome })
    return
  }
  const slot = goal?.slots[work.index!]
  if (
    !task ||
    !goal ||
    !slot ||
    !isHolder(peer, task, work.epoch) ||
    slot.node ||
    work.proposal !== goal.accepted?.id
  ) {
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
