/**
 * When a peer runs anti-entropy with its links: every
 * ANTI_ENTROPY_INTERVAL_MS while plan records come, more and more seldom
 * while none do (a quiet room), at the short gap again as soon as one does.
 */

/**
 * Anti-entropy with every linked peer this often while records come,
 * besides the sync when a link opens: repairs what gossip lost. Peers
 * already in sync exchange one HELLO frame (a fingerprint) each way.
 */
export const ANTI_ENTROPY_INTERVAL_MS = 20_000
/**
 * In a quiet room the rounds space out: each round after which this peer had
 * no new plan record doubles the gap, up to this; a new record (heard,
 * synced or made here) brings it back to ANTI_ENTROPY_INTERVAL_MS at once.
 * What gossip lost is still repaired within ANTI_ENTROPY_INTERVAL_MS of its
 * making: the peer that made a record has a new record, so it syncs with all
 * its links at the short gap, and so does each peer that receives it then.
 * In a room that stays quiet there is nothing new to repair (a new link
 * syncs when it opens), so the rounds go down to one in 10 minutes: each
 * one is a stream and a fingerprint exchange with every link, on both ends.
 */
export const ANTI_ENTROPY_QUIET_MAX_MS = 640_000

export interface AntiEntropyClockInit {
  /** starts one round (with every link); its failures are the caller's to log */
  round: () => void
  now?: () => number
  /** default ANTI_ENTROPY_INTERVAL_MS */
  intervalMs?: number
  /** default ANTI_ENTROPY_QUIET_MAX_MS */
  quietMaxMs?: number
}

export class AntiEntropyClock {
  private readonly now: () => number
  private readonly base: number
  private readonly max: number
  private gapMs: number
  private due: number
  private records = 0
  private recordsAtRound = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  private stopped = false

  constructor(private readonly init: AntiEntropyClockInit) {
    this.now = init.now ?? Date.now
    this.base = init.intervalMs ?? ANTI_ENTROPY_INTERVAL_MS
    this.max = Math.max(this.base, init.quietMaxMs ?? ANTI_ENTROPY_QUIET_MAX_MS)
    this.gapMs = this.base
    this.due = this.now() + this.base
    this.schedule()
  }

  /** the gap until the next round, as it stands */
  get gap(): number {
    return this.gapMs
  }

  /** A new plan record: back to the short gap (a round due sooner stays sooner). */
  recordArrived(): void {
    this.records++
    if (this.stopped || this.gapMs === this.base) return
    this.gapMs = this.base
    this.due = Math.min(this.due, this.now() + this.base)
    this.schedule()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }

  private schedule(): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => this.fire(), Math.max(0, this.due - this.now()))
  }

  private fire(): void {
    if (this.stopped) return
    const quiet = this.records === this.recordsAtRound
    this.recordsAtRound = this.records
    this.gapMs = quiet ? Math.min(this.gapMs * 2, this.max) : this.base
    this.due = this.now() + this.gapMs
    this.schedule()
    this.init.round()
  }
}
