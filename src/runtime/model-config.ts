/**
 * A role's model settings as the driver compares them (a check of old settings
 * says nothing of new ones) and as presence names them.
 */
import type { ModelConfig } from '../llm/types'

/** The same settings: provider, model, address and key. */
export function sameModel(a: ModelConfig, b: ModelConfig): boolean {
  return (
    a.provider === b.provider &&
    a.model === b.model &&
    (a.baseUrl ?? '') === (b.baseUrl ?? '') &&
    (a.apiKey ?? '') === (b.apiKey ?? '')
  )
}

export function modelLabel(model: ModelConfig): string {
  return model.provider === 'offline'
    ? 'offline-v1'
    : `${model.provider}/${model.model}`.slice(0, 80)
}
