/**
 * The parts of a sync session (sync.ts) that are not the session itself:
 * how many sessions run with one peer, whether a cut one resumes, its report
 * and its errors.
 */
import { SYNC_MAX_RETRIES, SYNC_RETRY_DELAY_MS } from './constants'
import { ProtocolViolationError } from './errors'
import { SYNC_VERSION, type Hello } from './sync-wire'
import type { SyncReport } from './types'

/**
 * Sessions one side may have open with one peer at once, over all its links
 * to it (PROTOCOL.md §7.3): the session a new link opens, anti-entropy's
 * round, a claimant's check rounds (up to SYNC_CHECK_ROUNDS, 3) and a resumed
 * session. Concurrent sessions never fetch an id twice (`inflight`); one
 * more is refused (its stream reset, no strike).
 */
export const SYNC_MAX_SESSIONS_PER_PEER = 6

/**
 * A session whose link closes under it (a newer link to the peer replaced
 * it: relink.ts) is resumed at once on the peer's open link, at most this
 * many times in a row: what it received is kept, and the new session
 * reconciles only what is left.
 */
export const SYNC_MAX_RESUMES = 3

/** Runs `run` counted as one more session with `peer` in `counts`. */
export async function counted<T>(
  counts: Map<string, number>,
  peer: string,
  run: () => Promise<T>,
): Promise<T> {
  counts.set(peer, (counts.get(peer) ?? 0) + 1)
  try {
    return await run()
  } finally {
    const left = (counts.get(peer) ?? 1) - 1
    if (left > 0) counts.set(peer, left)
    else counts.delete(peer)
  }
}

export function checkHello(hello: Hello, room: string): void {
  if (hello.version !== SYNC_VERSION) throw violation(`unsupported version ${hello.version}`)
  if (hello.room !== room) {
    throw new RoomMismatch(`peer is in room "${hello.room}", we are in "${room}"`)
  }
}

export class RoomMismatch extends Error {
  override name = 'RoomMismatch'
}

export function violation(msg: string): ProtocolViolationError {
  return new ProtocolViolationError(`sync: ${msg}`)
}

export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e))
}

export function emptyReport(
  peer: string,
  initiator: boolean,
  started: number,
  error?: string,
): SyncReport {
  const r: SyncReport = {
    peer,
    initiator,
    inSync: false,
    rounds: 0,
    sent: 0,
    accepted: 0,
    rejected: 0,
    ignored: 0,
    wanted: 0,
    missing: 0,
    deferred: 0,
    bytesOut: 0,
    bytesIn: 0,
    ms: Date.now() - started,
  }
  if (error !== undefined) r.error = error
  return r
}

/**
 * A session's idle deadline, pushed back at every frame read: one timer that,
 * when it fires early, sleeps again until the deadline, instead of a timer
 * cleared and set for each of a late join's hundred thousand frames.
 */
export class IdleWatch {
  private timer: ReturnType<typeof setTimeout> | undefined
  /** when the session is idle (Date.now() time); 0 while not watching */
  private deadline = 0

  constructor(
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {}

  /** Starts (or pushes back) the deadline: `ms` from now. */
  arm(): void {
    this.deadline = Date.now() + this.ms
    this.timer ??= setTimeout(() => this.fire(), this.ms)
  }

  /** Stops watching (waiting on our own work is not the peer being idle). */
  stop(): void {
    this.deadline = 0
    clearTimeout(this.timer)
    this.timer = undefined
  }

  private fire(): void {
    this.timer = undefined
    if (this.deadline === 0) return
    const left = this.deadline - Date.now()
    if (left <= 0) this.onIdle()
    else this.timer = setTimeout(() => this.fire(), left)
  }
}

/**
 * Whether to sync again after a session, and when (the swarm's loop): a
 * session that left something behind (records missing, or differences over
 * its budgets) syncs again, at most SYNC_MAX_RETRIES times in a row without
 * progress. One that brought records and left more (a late joiner's next
 * 5,000) goes on at once: at SYNC_RETRY_DELAY_MS each, a 100,000-record join
 * waited 5.7 s between its twenty sessions. A failed or fruitless one waits.
 * `retries`: the count so far; answered: the count after this session (the
 * caller adds one when it does schedule the next) and the delay, if any.
 */
export function syncAgain(
  report: SyncReport,
  retries: number,
): { retries: number; delayMs: number | undefined } {
  const leftover = report.missing > 0 || report.deferred > 0
  // a session that made progress resets the count
  const count = (!leftover && report.error === undefined) || report.accepted > 0 ? 0 : retries
  if (!leftover || count >= SYNC_MAX_RETRIES) return { retries: count, delayMs: undefined }
  const onward = report.accepted > 0 && report.deferred > 0 && report.error === undefined
  return { retries: count, delayMs: onward ? 0 : SYNC_RETRY_DELAY_MS }
}
