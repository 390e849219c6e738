/**
 * Claiming exclusive tasks: who claims, when, and when to let go.
 *
 * - Every live, eligible peer ranks the candidates for a task the same way
 *   (rendezvous order). The first choice claims at once and starts at once;
 *   the k-th claims only after k × STAGGER_MS with no claim, then waits the
 *   claim window before starting. So claims rarely compete, and no fixed
 *   wait sits on the critical path.
 * - Competing claims in one epoch are settled by rendezvous rank, never by
 *   timestamps: a peer whose clock is minutes off wins exactly as often as
 *   any other.
 * - A holder renews its lease by listing the task in its presence beats. A
 *   holder not heard renewing for LEASE_TIMEOUT_MS (on the observer's own
 *   clock) is taken over: the next epoch is claimed, the same way.
 * - A holder that sees a better claim, a later epoch, or the task already
 *   done, stops.
 * - A contested claimant (not the first choice, a takeover, a resumed
 *   claim, any decide claim) checks with its neighbours before it starts:
 *   it asks for an anti-entropy round at once (a decider a moment later,
 *   DECIDE_CHECK_DELAY_MS) and starts only once that round has ended (it then
 *   holds every claim and result its neighbours hold, which gossip may have
 *   lost) and no live peer whose claim it lacks lists the task in its
 *   beats. The first choice of a fresh execute or rollup task starts at
 *   once: it is the common case and the check would sit on the critical
 *   path.
 */
import { MAX_EPOCH } from '../protocol/limits'
import type { TaskType } from '../protocol/records'
import type { ClaimRecord } from '../protocol/records'
import {
  CLAIM_WINDOW_MS,
  DECIDE_CHECK_DELAY_MS,
  LEASE_TIMEOUT_MS,
  ORPHAN_GRACE_MS,
  STAGGER_MS,
  SYNC_CHECK_TIMEOUT_MS,
} from '../protocol/rules'
import type { TaskState } from '../plan/tasks'
import { holdingCounts } from '../plan/authority'
import { goalOfTask, mayWorkOn } from './consent'
import { abortWork, freeSlots } from './work'
import { derived } from './room-view'
import { emit } from './emit'
import { failedHere } from './retry'
import { isWarm } from './warmth'
import { since, type PeerState, type Work } from './peer'
import { askedSince, requestSync, syncedSince } from './neighbours'
import { mayPublish } from './lapse'
import type { Effects } from './types'
import { eligiblePeers, isAlive, rankFor, type Eligibility } from './view'

const WORK_KIND: Record<TaskType, Work['kind']> = {
  decide: 'decide',
  execute: 'execute',
  rollup: 'rollup',
}

export function isHolder(peer: PeerState, task: TaskState, epoch?: number): boolean {
  const holder = task.holder
  return (
    holder !== null &&
    holder.from === peer.config.peerId &&
    !task.released &&
    (epoch === undefined || holder.epoch === epoch)
  )
}

/** Has the current holder gone silent? Judged on this peer's clock only. */
export function leaseExpired(peer: PeerState, task: TaskState, now: number): boolean {
  const holder = task.holder
  if (!holder || holder.from === peer.config.peerId) return false
  const lease = peer.view.leases.get(task.id)
  if (!lease || lease.holder !== holder.from || lease.epoch !== holder.epoch) {
    // first sight of this holder: its lease runs from now
    peer.view.leases.set(task.id, { holder: holder.from, epoch: holder.epoch, renewedAt: now })
    return false
  }
  const silentFor = now - lease.renewedAt
  // A live holder that stopped listing the task has most likely finished it
  // and its result has not reached us yet: give anti-entropy time to bring
  // it before running the task a second time.
  if (isAlive(peer.view, holder.from, now)) return silentFor > LEASE_TIMEOUT_MS + ORPHAN_GRACE_MS
  return silentFor > LEASE_TIMEOUT_MS
}

/**
 * Claim `task` if it is free (never claimed, given back, or its holder went
 * silent) and it is this peer's turn in the rendezvous order.
 */
export function maybeClaim(
  peer: PeerState,
  fx: Effects,
  task: TaskState,
  want: Eligibility,
  now: number,
): boolean {
  // deciding costs no slot: the accept makes no LLM call (its voters classified the
  // split); waiting for a free slot would stall a whole level
  const needsSlot = task.type !== 'decide'
  if (!isWarm(peer, now) || !peer.healthy || (needsSlot && freeSlots(peer) <= 0)) return false
  // consent: not a goal this peer spends its key on (its author, or its budget)
  const goal = goalOfTask(derived(peer), task)
  if (!mayWorkOn(peer.config.consent, goal)) return false
  // the goal's author paused it: no new claims (running work may finish; issue 27)
  if (goal?.paused) return false
  const me = peer.config.peerId
  // a leaf failed as a capability gap may still be taken (plan/gap.ts): the
  // executor's reconcile offers only those gapRevivable allows
  const revivable = task.type === 'execute' && task.status === 'failed' && task.gap !== null
  if (task.status === 'done' || (task.status === 'failed' && !revivable)) return false
  if (failedHere(peer, task.id)) return false
  if (hasWork(peer, task.id)) return false
  // whoever gave the task back, for any reason, is not ranked for it again
  const exclude = new Set(task.failures.map((failure) => failure.from))
  exclude.delete(me) // it failed with a model it has since replaced (see failedHere)
  if (task.holder && !task.released) {
    if (task.holder.from === me) return false
    if (!leaseExpired(peer, task, now)) return false
    exclude.add(task.holder.from)
  }
  // a live peer's beat says it is working on this task: its claim may have
  // been lost on the way to us, so do not compete with it
  if (heldByOther(peer, task.id, now)) return false
  // someone published work for this task but its claim has not reached us:
  // give sync the time to bring it rather than do the work again
  if (task.unclaimedOutputs > 0 && now - since(peer, `orphans:${task.id}`, now) < ORPHAN_GRACE_MS) {
    return false
  }
  const epoch = task.epoch + 1
  // the protocol's range: a claim beyond it would be rejected by every peer
  if (epoch > MAX_EPOCH) return false
  const readyAt = since(peer, `claimable:${task.id}:${epoch}`, now)
  const eligible = eligiblePeers(
    peer.view,
    { peerId: me, eligible: true },
    { ...want, exclude, ...(needsSlot ? { free: true, held: derived(peer).holdings } : {}) },
    now,
  )
  const rank = rankFor(task.id, me, eligible)
  if (rank < 0 || now < readyAt + rank * STAGGER_MS) return false
  const claim = emit<ClaimRecord>(peer, fx, {
    kind: 'claim',
    task: task.id,
    taskType: task.type,
    subject: task.subject,
    epoch,
    at: now,
  })
  if (!claim) return false
  // Deciding always checks: two deciders would split a goal two ways, and
  // whole subtrees would be grown twice; a restarted scorer may think itself
  // first choice from a view of the swarm still filling in. The check costs
  // one sync round trip, once per goal, which runs while the votes come in
  // (the decider claims at the goal's first proposal: scorer.ts).
  const contested = rank > 0 || epoch > 0 || task.type === 'decide'
  // the check's round is asked for by reviewClaims, in this same step (a
  // decider's DECIDE_CHECK_DELAY_MS later)
  const checkFrom = task.type === 'decide' ? now + DECIDE_CHECK_DELAY_MS : now
  peer.work.set(claimRequestId(task.id, epoch), {
    requestId: claimRequestId(task.id, epoch),
    kind: WORK_KIND[task.type],
    subject: task.subject,
    task: task.id,
    epoch,
    since: rank === 0 ? -Infinity : now,
    started: false,
    llm: null,
    ...(contested ? { checkFrom } : {}),
  })
  fx.events.push({ type: 'claimed', task: task.id, epoch, designated: rank === 0 })
  // say so in a beat too: a second chance for peers that miss the claim
  peer.beatDue = true
  return true
}

function heldByOther(peer: PeerState, task: string, now: number): boolean {
  const claims = peer.plan.taskRecords(task).claims
  for (const [other, sighting] of peer.view.peers) {
    if (
      other !== peer.config.peerId &&
      isAlive(peer.view, other, now) &&
      sighting.presence.holding.includes(task) &&
      // a holding counts for real claims only; one without a claim, only while it may be in transit
      holdingCounts(
        claims,
        other,
        since(peer, `holding:${other}:${task}`, now),
        now,
        ORPHAN_GRACE_MS,
      )
    ) {
      return true
    }
  }
  return false
}

/**
 * A contested claim's check needs a sync round asked for at or after its
 * `checkFrom`: ask for one once that time has come, unless one asked since is
 * in flight (or has ended).
 */
function askForCheck(peer: PeerState, fx: Effects, work: Work, now: number): void {
  if (work.checkFrom === undefined || now < work.checkFrom) return
  if (!askedSince(peer, work.checkFrom)) requestSync(peer, fx, now)
}

/**
 * May a contested claim start? Once a sync round asked for since the claim
 * has ended (or the round timed out), and no live peer lists the task in its
 * beats without a claim of the current epoch that this peer holds: such a
 * peer is at work on a claim (or a result) that has not reached us. A
 * co-claimant whose claim we hold does not block: it stops on seeing ours.
 */
function checkedWithNeighbours(peer: PeerState, work: Work, task: TaskState, now: number): boolean {
  if (work.checkFrom === undefined) return true
  if (now < work.checkFrom) return false
  const timedOut = now - work.checkFrom >= SYNC_CHECK_TIMEOUT_MS
  if (!syncedSince(peer, work.checkFrom) && !timedOut) return false
  if (!mayPublish(peer, work, now)) return false
  for (const [other, sighting] of peer.view.peers) {
    if (other === peer.config.peerId || !isAlive(peer.view, other, now)) continue
    if (!sighting.presence.holding.includes(task.id)) continue
    if (!task.claims.some((claim) => claim.from === other && claim.epoch === task.epoch))
      return false
  }
  return true
}

export function claimRequestId(task: string, epoch: number): string {
  return `claim:${task}:${epoch}`
}

export function hasWork(peer: PeerState, task: string): boolean {
  for (const work of peer.work.values()) if (work.task === task) return true
  return false
}

/**
 * Review this peer's claims and running task work:
 * - claims whose window has passed (or first choices) and that still win are
 *   handed to `begin` once their check with the neighbours has passed;
 * - work on a task this peer no longer holds, or that is done, is dropped.
 * Also resumes tasks this peer holds but has no work for (after a restart).
 */
export function reviewClaims(
  peer: PeerState,
  fx: Effects,
  now: number,
  begin: (claim: Work, task: TaskState) => void,
  stillWanted: (task: TaskState) => boolean,
): void {
  const tasks = derived(peer).tasks
  for (const work of [...peer.work.values()]) {
    if (work.task === undefined) continue
    const task = tasks.get(work.task)
    if (!task || !isHolder(peer, task, work.epoch) || !stillWanted(task)) {
      abortWork(peer, fx, work, 'no longer the holder, or the task is settled')
      continue
    }
    if (work.started) continue
    askForCheck(peer, fx, work, now)
    if (now - work.since >= CLAIM_WINDOW_MS) {
      if (checkedWithNeighbours(peer, work, task, now)) {
        peer.work.delete(work.requestId)
        begin(work, task)
      }
    }
  }
  // after a restart, hear the swarm and sync first: the task may have been taken over meanwhile
  if (!isWarm(peer, now)) return
  for (const task of tasks.values()) {
    if (!isHolder(peer, task) || hasWork(peer, task.id) || !stillWanted(task)) continue
    if (task.type !== 'decide' && freeSlots(peer) <= 0) continue
    if (!mayWorkOn(peer.config.consent, goalOfTask(derived(peer), task))) continue
    // Held by this peer but nothing running: it restarted mid-task. Its claim
    // may never have left it before the restart (it was restored from disk),
    // and another peer may have claimed the same epoch and be at work. Say the
    // claim again and wait a claim window, as a contested claimant does: the
    // other peer then stops (this one outranks it), or its result arrives
    // first and this peer never starts.
    const holder = task.holder!
    fx.publish.push(holder)
    requestSync(peer, fx, now)
    peer.work.set(claimRequestId(task.id, holder.epoch), {
      requestId: claimRequestId(task.id, holder.epoch),
      kind: WORK_KIND[task.type],
      subject: task.subject,
      task: task.id,
      epoch: holder.epoch,
      since: now,
      started: false,
      llm: null,
      checkFrom: now,
    })
    peer.beatDue = true
  }
}
