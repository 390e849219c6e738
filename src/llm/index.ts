/**
 * The LLM layer's public surface. Role logic needs only runLlmTask and
 * createProvider; the rest is for the UI (errors, cost), the simulator and
 * the mock server (offline model, prompt parsing).
 */
export * from './types'
export { createProvider, DEFAULT_OPENAI_COMPATIBLE_BASE_URL } from './provider'
export type {
  GenerateRequest,
  GenerateResult,
  LlmProvider,
  ProviderInit,
  StructuredOutputMode,
} from './provider'
export {
  runLlmTask,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_BACKOFF_MS,
  MAX_OUTPUT_TOKENS,
  STREAMED_KINDS,
} from './run-task'
export type { RunTaskOptions } from './run-task'
export { retryText, type LlmRetry, type RetryCause } from './retry-notice'
export {
  LlmError,
  LlmAuthError,
  LlmUnreachableError,
  LlmRateLimitError,
  LlmBadOutputError,
  LlmOtherError,
  LlmNotFoundError,
  toLlmError,
  isAbortError,
} from './errors'
export { costUsd, priceFor, priceKnown, PRICES_PER_MTOK } from './pricing'
export type { ModelPrice } from './pricing'
export {
  offlineAnswer,
  createOfflineProvider,
  OFFLINE_MODEL,
  OFFLINE_PROVIDER,
  OFFLINE_LABEL,
  DEFAULT_OFFLINE_LATENCY_MS,
} from './offline'
export { OUTPUT_SCHEMAS, SCHEMA_NAMES, validateOutput, wireJsonSchema } from './schemas'
export { buildPrompts, parsePrompts, taskKindFromSystem } from './prompts'
export { extractJsonObject } from './json-extract'
export { estimateTokens } from './tokens'
