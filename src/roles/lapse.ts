/**
 * Lapsed leases: a peer that was away (its tab frozen, its laptop asleep)
 * for longer than a lease.
 *
 * Its peers took it for gone and may have claimed its tasks in the next
 * epoch, finished them, even rolled them up. Coming back, it cannot know:
 * what happened meanwhile is still on its way to it (its links may have
 * dropped and relink seconds later), and its view of who is alive is as old
 * as its absence, so everyone else looks gone. Acting on that, it would
 * claim and redo tasks its peers finished, and its results would count over
 * theirs (an earlier epoch's result wins, and at equal epochs the
 * better-ranked author: authority.ts), contradicting a roll-up already
 * written. So, until a sync round asked for since it came back has ended
 * with a neighbour's answer (or LAPSED_OUTPUT_WAIT_MS alone, when nobody
 * can have taken over):
 * - it is not warm: it claims, proposes and scores nothing new, and once
 *   the round is in it warms up for a beat's gap (PRESENCE_INTERVAL_MS), so
 *   that every busy peer has told it it is alive;
 * - claims it had not started become contested (claims.ts) and wait for
 *   that round too: a round that ended with no link up tells nothing;
 * - execute and rollup calls in flight are marked lapsed: their
 *   answer is held (Work.outcome), then published only if this peer still
 *   holds the task (else reviewClaims drops it).
 * Away is judged on its own clock: no step for longer than a lease (a
 * running core steps at least once a second).
 */
import {
  LAPSED_OUTPUT_WAIT_MS,
  LAPSED_SYNC_RETRY_MS,
  LEASE_TIMEOUT_MS,
  PRESENCE_INTERVAL_MS,
  SYNC_CHECK_TIMEOUT_MS,
  WARMUP_MS,
} from '../protocol/rules'
import { answeredSince, lastAsked, requestSync } from './neighbours'
import type { PeerState, Work } from './peer'
import type { Effects } from './types'

/** Work whose answer waits for news from the neighbours before it goes out. */
function lapsedKind(work: Work): boolean {
  return work.kind === 'execute' || work.kind === 'rollup'
}

/**
 * Called first thing in a step, before inputs: was this peer away for longer
 * than a lease? Then it lapsed (see above).
 */
export function noticeLapse(peer: PeerState, fx: Effects, now: number): void {
  const away = now - peer.lastStepAt
  peer.lastStepAt = now
  if (away <= LEASE_TIMEOUT_MS) return
  let lapsed = 0
  for (const work of peer.work.values()) {
    if (work.task === undefined) continue
    if (!work.started) {
      // it starts only after the check, and only on a round a neighbour answered
      work.checkFrom = Math.max(work.checkFrom ?? -Infinity, now)
      work.lapsedAt ??= now
      lapsed++
    } else if (lapsedKind(work) && work.lapsedAt === undefined) {
      work.lapsedAt = now
      lapsed++
    }
  }
  // a peer not yet joined (no work yet) stays so: joining is the runtime's call
  if (peer.warmFrom !== null) {
    peer.warmFrom = null
    peer.awayAt = now
  }
  requestSync(peer, fx, now)
  fx.events.push({ type: 'was-away', tasks: lapsed, awayMs: away })
}

/** Have the neighbours had their say since `since`, or has this peer waited long enough alone? */
function cleared(peer: PeerState, since: number, now: number): boolean {
  return answeredSince(peer, since) || now - since >= LAPSED_OUTPUT_WAIT_MS
}

/** May this work start or its answer go out now (never lapsed, or the lapse is cleared)? */
export function mayPublish(peer: PeerState, work: Work, now: number): boolean {
  return work.lapsedAt === undefined || cleared(peer, work.lapsedAt, now)
}

/** Held answers of lapsed work whose lapse has cleared, taken out of `peer.work` to go out now. */
export function clearedAnswers(peer: PeerState, now: number): Work[] {
  const cleared: Work[] = []
  for (const work of [...peer.work.values()]) {
    if (work.lapsedAt === undefined || work.outcome === undefined) continue
    if (!mayPublish(peer, work, now)) continue
    peer.work.delete(work.requestId)
    cleared.push(work)
  }
  return cleared
}

/**
 * After the step: warm up again once the neighbours have had their say, and
 * until then keep asking for sync rounds (the links come back a few seconds
 * after the peer does): not while a round is in flight, unless it is one the
 * absence left hanging (older than SYNC_CHECK_TIMEOUT_MS: requestSync gives
 * it up).
 */
export function chaseLapsed(peer: PeerState, fx: Effects, now: number): void {
  if (peer.awayAt !== null && cleared(peer, peer.awayAt, now)) {
    // warm (isWarm: WARMUP_MS after warmFrom) a beat's gap from now
    peer.warmFrom = now + PRESENCE_INTERVAL_MS - WARMUP_MS
    peer.awayAt = null
  }
  // (work lapses with its peer, at the same time: it waits while the peer does)
  if (peer.awayAt === null) return
  const oldest = peer.syncs.asked[0]
  const inFlight = oldest !== undefined && now - oldest < SYNC_CHECK_TIMEOUT_MS
  if (!inFlight && now - lastAsked(peer) >= LAPSED_SYNC_RETRY_MS) requestSync(peer, fx, now)
}
