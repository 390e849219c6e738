/**
 * The headless agent's defaults and bounds: leaf values that its option
 * parsing (agent-options.ts) and its help text (agent-usage.ts) both name.
 */
import type { ModelConfig } from '../llm/types'

/** Where `npm start` serves the app (and /relay.json) by default. */
export const DEFAULT_APP_URL = 'http://127.0.0.1:8080'

/**
 * LLM calls one agent runs at once unless told: the runtime's default, as a
 * tab's (runtime.ts DEFAULT_CAPACITY; a test keeps them equal). Written out
 * here so that reading the command line loads no network code: --help and a
 * mistake answer at once.
 */
export const DEFAULT_AGENT_CAPACITY = 4

/** Where a --goal's final plan is written unless told (Markdown, one file a goal). */
export const DEFAULT_PLANS_DIR = '.data/plans'

/**
 * Most LLM calls one agent may run at once. A presence beat advertises the
 * load (at most 1 000 on the wire); far beyond a few dozen, a provider's rate
 * limit is hit first, so a larger figure is almost certainly a typo.
 */
export const MAX_AGENT_CAPACITY = 64

/** The model each provider uses when --model is not given. */
export const DEFAULT_MODELS: Record<ModelConfig['provider'], string> = {
  offline: 'offline-v1',
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-4.1-mini',
  'openai-compatible': 'llama3.1',
}

export const PROVIDERS = Object.keys(DEFAULT_MODELS) as ModelConfig['provider'][]
