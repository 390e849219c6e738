/**
 * Checks a broken model again now and then (issue 56). A role whose model is
 * known broken takes no work (roles/model-health.ts), so no task call will
 * ever find out that the server came up or the key was activated: a cheap
 * check does, every MODEL_RECHECK_MS, and its verdict goes to the core. A
 * tab's page runs its own check (ui/lib/model-check-state.svelte.ts, which
 * also tells the browser's reasons apart); a headless agent's driver runs
 * this one, with the agent's start-up check.
 */
import type { ModelConfig } from '../llm/types'
import type { ModelVerdict } from '../roles/types'

/**
 * How often a broken model is checked again: as often as a rate-limited one
 * is tried again with a task (HEALTH_RETRY_MS), and a check is a request of a
 * few dozen tokens at most (nothing, for a rejected key or a dead address).
 */
export const MODEL_RECHECK_MS = 30_000

/**
 * One cheap call of `model`: what it found; null when the answer says
 * nothing of the settings (a server error). Rejects only when `signal`
 * aborts it.
 */
export type CheckModel = (model: ModelConfig, signal: AbortSignal) => Promise<ModelVerdict | null>

export interface ModelRecheckInit {
  check: CheckModel
  /** the verdict, for the model it was made with (the caller drops one of a replaced model) */
  onVerdict: (model: ModelConfig, verdict: ModelVerdict) => void
  everyMs?: number
  log?: (message: string) => void
}

export class ModelRecheck {
  private timer: ReturnType<typeof setTimeout> | null = null
  private running: AbortController | null = null

  constructor(private readonly init: ModelRecheckInit) {}

  /**
   * Called after every step: while `broken`, a check of `model` is due
   * MODEL_RECHECK_MS after the last; once it is not, none.
   */
  follow(broken: boolean, model: ModelConfig): void {
    if (!broken) return this.stop()
    if (this.timer || this.running) return
    this.timer = setTimeout(() => {
      this.timer = null
      void this.run(model)
    }, this.init.everyMs ?? MODEL_RECHECK_MS)
  }

  private async run(model: ModelConfig): Promise<void> {
    const abort = new AbortController()
    this.running = abort
    try {
      const verdict = await this.init.check(model, abort.signal)
      if (verdict && !abort.signal.aborted) this.init.onVerdict(model, verdict)
    } catch (err) {
      if (!abort.signal.aborted) this.init.log?.(`model check failed: ${(err as Error).message}`)
    } finally {
      if (this.running === abort) this.running = null
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.running?.abort()
    this.running = null
  }
}
