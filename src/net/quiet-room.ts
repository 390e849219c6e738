/**
 * Whether the room is quiet, and the swarm's ticker, whose pace follows it.
 * A quiet room (topology.ts quietAfterMs) keeps ring links only and slows
 * its timers (QUIET_TICK_MS); activity wakes it at once. The ticker runs the
 * swarm's periodic work every DIAL_RECHECK_MS, every QUIET_TICK_MS in a
 * quiet room.
 */
import { DIAL_RECHECK_MS, QUIET_TICK_MS } from './constants'
import { quietAfterMs } from './topology'

export interface QuietRoomInit {
  /** aborted when the node stops: no more ticks */
  signal: AbortSignal
  /** the swarm's periodic work; it calls `check()` among it */
  tick: () => void
  /** the room went quiet or woke: the parts slow down or speed up */
  onSwitch: (quiet: boolean) => void
  /** after a switch (the summary shows `quiet`) */
  onChange: () => void
  /** for tests: QUIET_LINKS_AFTER_MS (topology.ts quietAfterMs's default) */
  quietLinksAfterMs?: number
}

export class QuietRoom {
  private ticker: ReturnType<typeof setTimeout> | undefined
  private activeAt = Date.now()
  private isQuiet = false
  private planOver = false

  constructor(private readonly init: QuietRoomInit) {}

  get quiet(): boolean {
    return this.isQuiet
  }

  /** Activity (a record, a newcomer): wakes a quiet room at once. */
  active(): void {
    this.activeAt = Date.now()
    this.set(false)
  }

  /** A room whose plan is over goes quiet sooner (topology.ts quietAfterMs). */
  setPlanOver(over: boolean): void {
    this.planOver = over
  }

  /** Quiet once the room has had no activity for quietAfterMs. */
  check(): void {
    this.set(Date.now() - this.activeAt >= quietAfterMs(this.planOver, this.init.quietLinksAfterMs))
  }

  /** Starts the ticker: its first turn DIAL_RECHECK_MS from now. */
  start(): void {
    this.schedule(DIAL_RECHECK_MS)
  }

  stop(): void {
    clearTimeout(this.ticker)
  }

  private set(quiet: boolean): void {
    if (quiet === this.isQuiet) return
    this.isQuiet = quiet
    this.init.onSwitch(quiet)
    // awake, the ticker's next turn is a busy one (it may be QUIET_TICK_MS away)
    if (!quiet) this.schedule(DIAL_RECHECK_MS)
    this.init.onChange()
  }

  private schedule(ms: number): void {
    clearTimeout(this.ticker)
    if (!this.init.signal.aborted) this.ticker = setTimeout(() => this.turn(), ms)
  }

  private turn(): void {
    this.init.tick()
    this.schedule(this.isQuiet ? QUIET_TICK_MS : DIAL_RECHECK_MS)
  }
}
