/**
 * What a peer knows of the model it uses now, and whether it may take new
 * work with it (issue 56). Pure: the core's step calls these.
 *
 * - A new model (or key) resets what is known: nothing is known of it yet.
 * - A check of the model (the tab's, the agent's) says whether it works:
 *   its verdict is the latest truth until a call says otherwise.
 * - A model known broken (its key rejected, its model or address unknown,
 *   nothing answering) takes no new work: no claims, proposals or scores,
 *   and its beats say `healthy: false` (PROTOCOL.md §5.5), until its person
 *   changes it or a later check or call succeeds. It is never tried again
 *   with a task just because time passed: that claimed a task every 30 s
 *   with a key the provider had rejected.
 * - A failure that may pass (a rate limit) pauses the peer for
 *   HEALTH_RETRY_MS, then it tries again with its next task.
 */
import type { LlmErrorKind, LlmOutcome } from './llm-contract'
import type { PeerState, Work } from './peer'
import type { Effects, ModelStatus, ModelVerdict } from './types'

/** How long after a rate limit (or a call that ran into one) a peer tries its provider again. */
export const HEALTH_RETRY_MS = 30_000

/**
 * Failures that say the model, as configured, cannot work: retrying a task
 * changes nothing until the person changes the settings (or the server they
 * name comes up, which a check finds).
 */
export const BROKEN_MODEL_ERRORS: ReadonlySet<LlmErrorKind> = new Set([
  'auth',
  'not-found',
  'unreachable',
])

/** Nothing known of a model just chosen. */
export const UNKNOWN_MODEL: ModelStatus = { state: 'unknown', by: null, error: null, kind: null }

/** Is this peer's model known broken (it takes no new work)? */
export function modelBroken(peer: PeerState): boolean {
  return peer.modelStatus.state === 'broken'
}

function setHealthy(
  peer: PeerState,
  fx: Effects,
  healthy: boolean,
  error: string | null,
  now: number,
): void {
  if (peer.healthy === healthy && peer.lastError === error) return
  peer.healthy = healthy
  peer.lastError = error
  if (!healthy) peer.unhealthySince = now
  peer.beatDue = true
  fx.events.push({
    type: 'health',
    healthy,
    ...(error ? { error } : {}),
    ...(modelBroken(peer) ? { broken: true } : {}),
  })
}

/** The person chose another model or key: what was known of the old one no longer holds. */
export function modelChanged(peer: PeerState, fx: Effects, now: number): void {
  peer.modelGeneration++
  peer.modelStatus = UNKNOWN_MODEL
  setHealthy(peer, fx, true, null, now)
}

/** A check of the model in use answered: works, or cannot work (and why). */
export function modelChecked(
  peer: PeerState,
  fx: Effects,
  verdict: ModelVerdict,
  now: number,
): void {
  if (verdict.ok) {
    peer.modelStatus = { state: 'works', by: 'check', error: null, kind: null }
    setHealthy(peer, fx, true, null, now)
    return
  }
  peer.modelStatus = { state: 'broken', by: 'check', error: verdict.error, kind: verdict.kind }
  setHealthy(peer, fx, false, verdict.error, now)
}

/**
 * A call finished. One made with a model the person has since replaced says
 * nothing of the model in use (its key may have been the wrong one).
 */
export function callFinished(
  peer: PeerState,
  fx: Effects,
  work: Work,
  outcome: LlmOutcome,
  now: number,
): void {
  if (work.generation !== undefined && work.generation !== peer.modelGeneration) return
  if (outcome.ok) {
    peer.modelStatus = { state: 'works', by: 'call', error: null, kind: null }
    if (!peer.healthy || peer.lastError) setHealthy(peer, fx, true, null, now)
    return
  }
  const kind = outcome.errorKind
  const broken = BROKEN_MODEL_ERRORS.has(kind)
  peer.modelStatus = {
    state: broken ? 'broken' : 'failing',
    by: 'call',
    error: outcome.error,
    kind,
  }
  if (broken || kind === 'rate-limit') setHealthy(peer, fx, false, outcome.error, now)
  else peer.lastError = outcome.error
}

/** A rate-limited peer tries again after HEALTH_RETRY_MS; a broken model does not. */
export function healAfterPause(peer: PeerState, fx: Effects, now: number): void {
  if (!peer.healthy && !modelBroken(peer) && now - peer.unhealthySince >= HEALTH_RETRY_MS)
    setHealthy(peer, fx, true, null, now)
}
