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
 * the one in flight: only the settings in use are reported.
 */
import { currentPage, probeModel } from '../../llm/model-probe'
import type { ModelConfig } from '../../runtime/types'
import { describeCheck, type CheckWords, type ModelCheckState } from './model-check-words'

class ModelCheckStore {
  current = $state<ModelCheckState>({ state: 'unchecked' })
  #abort: AbortController | null = null

  get words(): CheckWords {
    return describeCheck(this.current, { ...currentPage(), origin: location.origin })
  }

  /** Checks `config` with one cheap call; resolves when the check has settled. */
  async check(config: ModelConfig): Promise<void> {
    this.#abort?.abort()
    this.#abort = null
    if (config.provider === 'offline') {
      this.current = { state: 'offline' }
      return
    }
    const abort = new AbortController()
    this.#abort = abort
    this.current = { state: 'checking', config }
    try {
      const result = await probeModel(config, {
        page: currentPage(),
        signal: abort.signal,
        onSlow: (serverUp) => {
          if (!abort.signal.aborted) this.current = { state: 'slow', config, serverUp }
        },
      })
      if (!abort.signal.aborted) this.current = { ...result, config }
    } catch {
      // aborted by a newer check, which reports instead
    } finally {
      if (this.#abort === abort) this.#abort = null
    }
  }
}

export const modelCheck = new ModelCheckStore()
