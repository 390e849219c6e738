/**
 * The tab's model check: what the last check of the model settings in use
 * found, as reactive state anyone can read (the model settings, the role
 * panel's badge, the LLM error alert):
 *
 *   import { modelCheck } from '…/lib/model-check-state.svelte'
 *   modelCheck.current  // ModelCheckState: unchecked, offline, checking, slow, ok, rate-limited, failed
 *   modelCheck.words    // describeCheck(current): { tone, short, headline, advice }
 *
 * A tab runs one role, so there is one check per tab. A new check cancels
 * the one in flight: only the settings in use are reported. Each verdict
 * goes to the role (reportTo: the role takes no new work with a model known
 * broken, roles/model-health.ts), and a broken model is checked again every
 * MODEL_RECHECK_MS, quietly (the failure stays shown meanwhile), so that a
 * server that comes up or a key that is activated is found without a task.
 */
import { currentPage, probeModel } from '../../llm/model-probe'
import { MODEL_RECHECK_MS } from '../../runtime/model-recheck'
import type { ModelConfig, ModelVerdict } from '../../runtime/types'
import {
  checkVerdict,
  describeCheck,
  type CheckWords,
  type ModelCheckState,
} from './model-check-words'

class ModelCheckStore {
  current = $state<ModelCheckState>({ state: 'unchecked' })
  #abort: AbortController | null = null
  #again: ReturnType<typeof setTimeout> | undefined
  #report: ((config: ModelConfig, verdict: ModelVerdict) => void) | null = null

  get words(): CheckWords {
    return describeCheck(this.current, this.#page())
  }

  #page() {
    return { ...currentPage(), origin: location.origin }
  }

  /** Where each check's verdict goes: the role's runtime (PeerRuntime.modelChecked). */
  reportTo(report: ((config: ModelConfig, verdict: ModelVerdict) => void) | null): void {
    this.#report = report
  }

  /**
   * Checks `config` with one cheap call; resolves when the check has
   * settled. `quiet`: a re-check of a broken model, which keeps showing
   * what the last check found until this one has an answer.
   */
  async check(config: ModelConfig, quiet = false): Promise<void> {
    this.#abort?.abort()
    this.#abort = null
    clearTimeout(this.#again)
    if (config.provider === 'offline') {
      this.current = { state: 'offline' }
      return
    }
    const abort = new AbortController()
    this.#abort = abort
    if (!quiet) this.current = { state: 'checking', config }
    try {
      const result = await probeModel(config, {
        page: currentPage(),
        signal: abort.signal,
        onSlow: (serverUp) => {
          if (!abort.signal.aborted && !quiet) this.current = { state: 'slow', config, serverUp }
        },
      })
      if (abort.signal.aborted) return
      this.current = { ...result, config }
      const verdict = checkVerdict(this.current, this.#page())
      if (verdict) this.#report?.(config, verdict)
      if (verdict && !verdict.ok)
        this.#again = setTimeout(() => void this.check(config, true), MODEL_RECHECK_MS)
    } catch {
      // aborted by a newer check, which reports instead
    } finally {
      if (this.#abort === abort) this.#abort = null
    }
  }

  /**
   * A call of the role found the model broken while the last check said it
   * works (a key revoked, a server gone): check now, so that what the
   * settings show is the truth of now, not of the last check.
   */
  callBroke(config: ModelConfig): void {
    const state = this.current.state
    if (state === 'ok' || state === 'rate-limited' || state === 'unchecked') void this.check(config)
  }
}

export const modelCheck = new ModelCheckStore()
