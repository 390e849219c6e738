/**
 * The text of this peer's running execute and roll-up calls, as it arrives
 * (issue 27: answers stream in as written), for its own tab to show under
 * the leaf being written. It never leaves the peer: other peers learn that a
 * leaf is being written from its claim and the holder's presence (its lease),
 * not from its text.
 *
 * The deltas of a call pile up here; snapshots of every running call go out
 * at most every LIVE_TEXT_INTERVAL_MS, only when something changed, so a fast
 * model costs the tab a few renders a second, not one per token.
 */
import { partialOutput } from '../llm/partial-output'
import { MAX_OUTPUT } from '../protocol/limits'
import type { LlmTaskKind } from '../llm/types'

/**
 * At most 10 snapshots a second: text still reads as flowing, and the worker
 * posts (and the page renders) a handful of times a second, whatever the
 * model's token rate.
 */
export const LIVE_TEXT_INTERVAL_MS = 100

export interface LiveCall {
  /** the call's request id */
  id: string
  kind: LlmTaskKind
  /** the task being written (a leaf's execute task, a goal's roll-up task) */
  task: string | null
  /** its root goal */
  goal: string | null
}

export interface LiveText extends LiveCall {
  /** 1 for the first attempt; a retry starts its text again */
  attempt: number
  /** the deliverable so far (the reply's `output`, decoded), at most MAX_OUTPUT characters */
  text: string
  /** characters of the raw reply so far */
  chars: number
  /** local ms timestamp the call started */
  startedAt: number
}

interface Running {
  call: LiveCall
  attempt: number
  raw: string
  startedAt: number
}

export class LiveTextFeed {
  private readonly running = new Map<string, Running>()
  private timer: ReturnType<typeof setTimeout> | null = null

  constructor(
    private readonly post: (live: LiveText[]) => void,
    private readonly intervalMs = LIVE_TEXT_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  start(call: LiveCall): void {
    this.running.set(call.id, { call, attempt: 1, raw: '', startedAt: this.now() })
    this.schedule()
  }

  text(id: string, delta: string, attempt: number): void {
    const run = this.running.get(id)
    if (!run) return
    if (attempt !== run.attempt) {
      run.attempt = attempt
      run.raw = ''
    }
    run.raw += delta
    this.schedule()
  }

  /** The call ended (answered, failed or aborted): its text goes (the result record shows the rest). */
  end(id: string): void {
    if (this.running.delete(id)) this.schedule()
  }

  snapshot(): LiveText[] {
    return [...this.running.values()].map(({ call, attempt, raw, startedAt }) => ({
      ...call,
      attempt,
      text: partialOutput(raw).slice(0, MAX_OUTPUT),
      chars: raw.length,
      startedAt,
    }))
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.running.clear()
  }

  private schedule(): void {
    if (this.timer) return
    this.timer = setTimeout(() => {
      this.timer = null
      this.post(this.snapshot())
    }, this.intervalMs)
  }
}
