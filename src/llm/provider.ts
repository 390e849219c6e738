/**
 * The provider interface: one request in (prompts + the JSON shape wanted),
 * one parsed reply out. Validation against the zod schema and retries live
 * in run-task.ts, so every provider, real or offline, is judged the same way.
 *
 * A provider throws an LlmError (errors.ts) when it got no usable answer
 * (bad key, unreachable, rate limit, 5xx) and rethrows aborts untouched.
 * When the model did answer, it returns the reply even if the reply holds
 * no JSON: the tokens were spent and the parse error is fed back on retry.
 */
import { createAiSdkProvider, type StructuredOutputMode } from './ai-sdk-provider'

export { DEFAULT_OPENAI_COMPATIBLE_BASE_URL, type StructuredOutputMode } from './ai-sdk-provider'
import type { JsonExtraction } from './json-extract'
import { createOfflineProvider } from './offline'
import type { Step } from '../protocol/steps'
import type { ToolCallReport } from './toolbox'
import type { ToolRequest, ToolSupport } from './tools'
import type { LlmTask, LlmTaskKind, ModelConfig } from './types'

export interface GenerateRequest {
  kind: LlmTaskKind
  system: string
  prompt: string
  /** JSON Schema of the expected object: structure only (schemas.ts says why) */
  jsonSchema: Record<string, unknown>
  /** a short name for the schema (OpenAI json_schema.name) */
  schemaName: string
  /** cap on generated tokens, so one runaway reply cannot cost much */
  maxOutputTokens?: number
  signal?: AbortSignal
  /** the task the prompts were built from: real providers ignore it, the offline model answers it */
  task?: LlmTask
  /** varies the offline model's answers between peers; ignored by real providers */
  seed?: string
  /** execute only: run the tool loop (tool-loop.ts) with these tools */
  tools?: ToolRequest
  /**
   * Stream the reply: told each piece of the model's text as it arrives (the
   * whole reply is still returned, and judged, at the end). Absent: no stream.
   */
  onText?: (delta: string) => void
  /** told the system prompt exactly as the provider sends it (text mode and tools add to it) */
  onSend?: (system: string) => void
}

export interface GenerateResult {
  /** the JSON object found in the reply, or why none was */
  json: JsonExtraction
  /** the raw reply text (for logs; never fed back whole, to save tokens) */
  text: string
  inputTokens: number
  outputTokens: number
  /** the model that answered, as the provider reported it */
  model: string
  /** tool loop: what ran and was searched, in order (empty or absent when nothing did) */
  steps?: Step[]
  /** tool loop: web searches the provider ran (priced per call) */
  webSearches?: number
  /** tool loop: each call of a toolbox's tools (toolbox.ts), refused ones too */
  toolCalls?: ToolCallReport[]
  /** tool loop: the budget ended it before the model answered, and why */
  stopped?: string
  /**
   * why generation stopped, as the AI SDK names it ('stop', 'length' = cut
   * at maxOutputTokens, ...); absent when the provider did not say
   */
  finishReason?: string
  /** characters of reasoning sent apart from the text (reasoning_content, thinking blocks); not part of `text` */
  reasoningChars?: number
}

export interface LlmProvider {
  /** goes into LlmUsage.provider */
  readonly id: ModelConfig['provider']
  /** for people: "Anthropic · claude-sonnet-4-5", "Offline model (built-in)" */
  readonly label: string
  /** the configured model id */
  readonly model: string
  /** true for the built-in offline model: costs nothing and is not a real LLM */
  readonly offline: boolean
  /** what this model does with tools now (a model that rejected them does nothing for good) */
  toolSupport(): ToolSupport
  generate(request: GenerateRequest): Promise<GenerateResult>
}

export interface ProviderInit {
  /** fetch to use (tests, proxies); defaults to globalThis.fetch */
  fetch?: typeof fetch
  /** offline model only: simulated latency per call in ms */
  latencyMs?: number
  /**
   * How to ask for JSON. 'native': the provider's structured output (tool
   * call / response_format / output_config), with text extraction as the
   * fallback. 'text': ask for JSON in the prompt and extract it from the
   * reply. Default: native for Anthropic and OpenAI, text for
   * OpenAI-compatible servers (see ai-sdk-provider.ts for why).
   */
  structuredOutput?: StructuredOutputMode
  /** extra HTTP headers for every request */
  headers?: Record<string, string>
}

export function createProvider(config: ModelConfig, init: ProviderInit = {}): LlmProvider {
  if (config.provider === 'offline') return createOfflineProvider(init)
  return createAiSdkProvider(config, init)
}
