/**
 * What one LLM call did, attempt by attempt, for the person whose key paid
 * for it (the call inspector, issue 27): runLlmTask reports it through
 * RunTaskOptions.onCall when the call ends. It holds prompts and replies,
 * never the key (the provider keeps that); it never leaves the peer.
 */
import type { ToolCallReport } from './toolbox'
import type { LlmErrorKind, LlmTaskKind } from './types'

/** One request to the provider and what came of it. */
export interface LlmCallAttempt {
  /** the user prompt as sent (a retry's carries the correction asked for) */
  prompt: string
  /** the system prompt this attempt sent, when not the call's `system` (a provider that switched to text mode midway) */
  system?: string
  /** the model's raw reply text; absent when no reply came (network, 4xx/5xx) */
  reply?: string
  /** the validated output, when this attempt passed the schema */
  output?: unknown
  /** why this attempt failed: the validation error, or the provider's error */
  error?: string
  errorKind?: LlmErrorKind
  /**
   * what was done about the reply or the error, in words (issue 44): "set
   * aside a <think> block (812 chars)", "trimmed subgoals from 7 to 6",
   * "waited 20 s: rate limited (body said try again in 20s)", "reply cut at
   * the token limit; retrying with maxOutputTokens 8000"
   */
  notes?: string[]
  inputTokens: number
  outputTokens: number
  /** wall-clock ms from request to answer (or failure) */
  latencyMs: number
}

export interface LlmCallReport {
  kind: LlmTaskKind
  provider: string
  model: string
  offline: boolean
  /**
   * the system prompt as the provider sent it (text mode adds the JSON
   * Schema, a tool loop its tool instructions); an attempt whose request
   * carried another says so in its own `system`
   */
  system: string
  attempts: LlmCallAttempt[]
  ok: boolean
  /** the final error, when the call failed */
  error?: string
  errorKind?: LlmErrorKind
  inputTokens: number
  outputTokens: number
  /** local ms timestamp the call started */
  startedAt: number
  /** wall-clock ms of the whole call, retries and backoff included */
  latencyMs: number
  /** tool steps the model took (issue 24's tool loop fills it in; absent without tools) */
  steps?: unknown[]
  /**
   * every call of its person's own tools (an MCP server, issue 57), in every
   * attempt, in order: tool, arguments, what came back, time; absent when none
   */
  toolCalls?: ToolCallReport[]
}
