/**
 * Whether this peer failed a subject with its current model, and whether it
 * may try it again (a failure made with a model it has since replaced is
 * forgiven: it says nothing of the new one).
 */
import { MAX_TASK_ATTEMPTS, RETRY_FAILED_AFTER_MS } from '../protocol/rules'
import { since, type PeerState } from './peer'

/** Did this peer fail `subject` (at `stage`) with its current model? */
export function failedHere(peer: PeerState, subject: string, stage?: string): boolean {
  return peer.plan
    .failures(subject)
    .some(
      (failure) =>
        failure.from === peer.config.peerId &&
        !peer.forgiven.has(failure.id) &&
        (stage === undefined || failure.stage === stage),
    )
}

/**
 * May this peer try `subject` (a goal to split, a proposal to score) again
 * at `stage`? Yes if it has not failed it with its current model; else
 * RETRY_FAILED_AFTER_MS after its latest failure, while it has failed it
 * fewer than MAX_TASK_ATTEMPTS times.
 */
export function mayTry(peer: PeerState, subject: string, stage: string, now: number): boolean {
  const mine = peer.plan
    .failures(subject)
    .filter(
      (failure) =>
        failure.from === peer.config.peerId &&
        failure.stage === stage &&
        !peer.forgiven.has(failure.id),
    )
  if (mine.length === 0) return true
  if (mine.length >= MAX_TASK_ATTEMPTS) return false
  const latest = Math.max(...mine.map((failure) => since(peer, `failed:${failure.id}`, now)))
  return now - latest >= RETRY_FAILED_AFTER_MS
}
