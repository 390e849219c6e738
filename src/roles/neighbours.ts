/**
 * The anti-entropy rounds a peer asks for before a contested claim starts
 * (claims.ts), tracked by the local time each was asked.
 */
import { SYNC_CHECK_ROUNDS, SYNC_CHECK_TIMEOUT_MS } from '../protocol/rules'
import type { PeerState } from './peer'
import type { Effects } from './types'

/**
 * The rounds of one peer: ask times of those in flight (oldest first), the
 * latest ask time known to be served by a round that ended (and by one in
 * which a neighbour answered), and whether another round is wanted once one
 * ends (SYNC_CHECK_ROUNDS were in flight).
 */
export interface SyncRounds {
  asked: number[]
  doneAt: number
  answeredAt: number
  again: boolean
}

export function createSyncRounds(): SyncRounds {
  return { asked: [], doneAt: -Infinity, answeredAt: -Infinity, again: false }
}

/**
 * Ask for an anti-entropy round with the neighbours, to begin after `now`.
 * Rounds overlap, up to SYNC_CHECK_ROUNDS: a decider that claims a second
 * goal while the first one's round is in flight gets a round of its own.
 * A round the runtime never reports as ended is given up after
 * SYNC_CHECK_TIMEOUT_MS, so a host without sync never blocks a claim.
 */
export function requestSync(peer: PeerState, fx: Effects, now: number): void {
  const rounds = peer.syncs
  while (rounds.asked.length > 0 && now - rounds.asked[0]! >= SYNC_CHECK_TIMEOUT_MS) {
    rounds.asked.shift()
  }
  if (askedSince(peer, now)) return // one asked at this very time serves
  if (rounds.asked.length >= SYNC_CHECK_ROUNDS) {
    rounds.again = true
    return
  }
  rounds.asked.push(now)
  rounds.again = false
  fx.sync = true
}

/**
 * A round ended (`answered`: at least one neighbour answered it). Rounds may
 * end in any order, and the runtime does not say which one did: after k of
 * them have ended, one asked at or after the k-th oldest ask time has, so
 * that time is what counts as served.
 */
export function syncEnded(peer: PeerState, fx: Effects, now: number, answered: boolean): void {
  const rounds = peer.syncs
  const asked = rounds.asked.shift()
  if (asked !== undefined) {
    rounds.doneAt = Math.max(rounds.doneAt, asked)
    if (answered) rounds.answeredAt = Math.max(rounds.answeredAt, asked)
  }
  if (rounds.again) requestSync(peer, fx, now)
}

/** Has a round been asked for at or after `since` (ended or not)? */
export function askedSince(peer: PeerState, since: number): boolean {
  const rounds = peer.syncs
  return (rounds.asked[rounds.asked.length - 1] ?? rounds.doneAt) >= since
}

/** Has a sync round asked for at or after `since` ended? */
export function syncedSince(peer: PeerState, since: number): boolean {
  return peer.syncs.doneAt >= since
}

/** Has a round asked for at or after `since` ended with a neighbour's answer? */
export function answeredSince(peer: PeerState, since: number): boolean {
  return peer.syncs.answeredAt >= since
}

/** The latest time a round was asked for (in flight or ended), or -Infinity. */
export function lastAsked(peer: PeerState): number {
  const rounds = peer.syncs
  return Math.max(rounds.asked[rounds.asked.length - 1] ?? -Infinity, rounds.doneAt)
}
