/**
 * The anti-entropy rounds a peer asks for before a contested claim starts
 * (claims.ts): one round at a time, tracked by the local time it was asked.
 */
import { SYNC_CHECK_TIMEOUT_MS } from '../protocol/rules'
import type { PeerState } from './peer'
import type { Effects } from './types'

/**
 * Ask for an anti-entropy round with the neighbours, to begin after `now`.
 * One round at a time: a request while one is in flight is served by the
 * next round. A round the runtime never reports as ended is given up after
 * SYNC_CHECK_TIMEOUT_MS, so a host without sync never blocks a claim.
 */
export function requestSync(peer: PeerState, fx: Effects, now: number): void {
  const syncs = peer.syncs
  if (syncs.askedAt !== null && now - syncs.askedAt < SYNC_CHECK_TIMEOUT_MS) {
    if (syncs.askedAt < now) syncs.again = true
    return
  }
  syncs.askedAt = now
  syncs.again = false
  fx.sync = true
}

/** Has a sync round asked for at or after `since` ended? */
export function syncedSince(peer: PeerState, since: number): boolean {
  return peer.syncs.doneAt >= since
}
