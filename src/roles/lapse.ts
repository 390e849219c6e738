/**
 * Lapsed leases: a holder that was away (its tab frozen, its laptop asleep)
 * for longer than a lease.
 *
 * Its peers took it for gone and may have claimed its tasks in the next
 * epoch, finished them, even rolled them up. Coming back, it cannot know:
 * its links dropped while it was away and relink seconds later, so gossip
 * has told it nothing yet. A result it published now would count over its
 * successor's (an earlier epoch's result wins, authority.ts) and contradict
 * a roll-up already written. So:
 * - claims it had not started yet (a decider waiting for votes, say) become
 *   contested: they start only after a check with the neighbours
 *   (claims.ts), on a round a neighbour answered (or after
 *   LAPSED_OUTPUT_WAIT_MS alone): a round that ended with no link up tells
 *   nothing;
 * - execute, rollup and classify calls in flight are marked lapsed: their
 *   answer is held (Work.outcome) until a sync round in which a neighbour
 *   answered has ended, and then published only if this peer still holds
 *   the task (else reviewClaims drops it), or after LAPSED_OUTPUT_WAIT_MS if
 *   nobody answers (alone, nobody else can have taken over).
 * A holder beats every PRESENCE_INTERVAL_MS; its own beats being late by
 * more than a lease is how it knows it was away, on its own clock.
 */
import {
  LAPSED_OUTPUT_WAIT_MS,
  LAPSED_SYNC_RETRY_MS,
  LEASE_TIMEOUT_MS,
  SYNC_CHECK_TIMEOUT_MS,
} from '../protocol/rules'
import { answeredSince, lastAsked, requestSync } from './neighbours'
import type { PeerState, Work } from './peer'
import type { Effects } from './types'

/** Work whose answer waits for news from the neighbours before it goes out. */
function lapsedKind(work: Work): boolean {
  return work.kind === 'execute' || work.kind === 'rollup' || work.kind === 'classify'
}

/**
 * Called first thing in a step, before inputs: was this holder away for
 * longer than a lease? Then its work lapsed (see above).
 */
export function noticeLapse(peer: PeerState, fx: Effects, now: number): void {
  if (!Number.isFinite(peer.lastBeatAt) || now - peer.lastBeatAt <= LEASE_TIMEOUT_MS) return
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
  if (lapsed === 0) return
  requestSync(peer, fx, now)
  fx.events.push({ type: 'lease-lapsed', tasks: lapsed, awayMs: now - peer.lastBeatAt })
}

/** May this work start or its answer go out now (never lapsed, or the lapse is cleared)? */
export function mayPublish(peer: PeerState, work: Work, now: number): boolean {
  if (work.lapsedAt === undefined) return true
  return answeredSince(peer, work.lapsedAt) || now - work.lapsedAt >= LAPSED_OUTPUT_WAIT_MS
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
 * Keep asking for sync rounds while lapsed work waits and nobody answered:
 * the links come back a few seconds after the peer does. Not while a round
 * is in flight, unless it is one the freeze left hanging (older than
 * SYNC_CHECK_TIMEOUT_MS: requestSync gives it up).
 */
export function chaseLapsed(peer: PeerState, fx: Effects, now: number): void {
  for (const work of peer.work.values()) {
    if (work.lapsedAt === undefined || mayPublish(peer, work, now)) continue
    const oldest = peer.syncs.asked[0]
    const inFlight = oldest !== undefined && now - oldest < SYNC_CHECK_TIMEOUT_MS
    if (!inFlight && now - lastAsked(peer) >= LAPSED_SYNC_RETRY_MS) requestSync(peer, fx, now)
    return
  }
}
