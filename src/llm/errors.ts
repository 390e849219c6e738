/**
 * Typed LLM errors the UI can explain in one line, and the mapping from
 * whatever a provider (AI SDK, fetch, the browser) throws to one of them.
 *
 * The AI SDK reports HTTP failures as APICallError (statusCode,
 * responseHeaders, isRetryable) and wraps Node's "fetch failed" as an
 * APICallError without a status. A browser blocked by CORS or offline throws
 * a bare TypeError ("Failed to fetch", "NetworkError ...", "Load failed")
 * that the SDK passes through. We duck-type rather than import the SDK's
 * classes so this file stays free of provider code.
 */
import type { LlmErrorKind } from './types'

/** Messages end up in the UI and in failure records (detail <= 500 chars). */
export const MAX_ERROR_MESSAGE = 300

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim()
  return oneLine.length <= MAX_ERROR_MESSAGE
    ? oneLine
    : `${oneLine.slice(0, MAX_ERROR_MESSAGE - 1)}…`
}

export abstract class LlmError extends Error {
  abstract readonly kind: LlmErrorKind
  /** worth another attempt with the same settings */
  abstract readonly retryable: boolean
  constructor(message: string, options?: { cause?: unknown }) {
    super(clip(message), options)
    this.name = new.target.name
  }
}

/** 401/403: the key is missing, wrong or lacks access. Retrying will not help. */
export class LlmAuthError extends LlmError {
  readonly kind = 'auth'
  readonly retryable = false
}

/** No HTTP answer: network down, DNS, connection refused, or CORS blocked it. */
export class LlmUnreachableError extends LlmError {
  readonly kind = 'unreachable'
  readonly retryable = true
}

/** 429 (or Anthropic's 529 overloaded): slow down; retryAfterMs when the provider said. */
export class LlmRateLimitError extends LlmError {
  readonly kind = 'rate-limit'
  readonly retryable = true
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** The model answered, but not with JSON that passes the schema. */
export class LlmBadOutputError extends LlmError {
  readonly kind = 'output'
  readonly retryable = true
}

/** Anything else: 4xx bad request or unknown model, 5xx, a bug. */
export class LlmOtherError extends LlmError {
  readonly kind = 'other'
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** What browsers and Node say when fetch gets no HTTP response at all. */
const NETWORK_FAILURE =
  /failed to fetch|fetch failed|networkerror|load failed|network request failed|cannot connect to api|econnrefused|enotfound|eai_again|econnreset|etimedout|socket hang up/i

interface ApiCallErrorLike {
  statusCode?: number
  responseHeaders?: Record<string, string>
  responseBody?: string
  isRetryable?: boolean
  message: string
}

function asApiCallError(error: unknown): ApiCallErrorLike | undefined {
  if (!(error instanceof Error)) return undefined
  const candidate = error as Error & ApiCallErrorLike
  // AI SDK errors carry a marker symbol; the stable public shape is name + fields.
  if (candidate.name === 'AI_APICallError') return candidate
  return undefined
}

/** Longest wait we honour from retry-after inside one task; longer waits become a failure. */
export const MAX_RETRY_AFTER_MS = 60_000

/** Parse retry-after-ms / retry-after (seconds or an HTTP date) into milliseconds. */
export function parseRetryAfter(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined
  const lower: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v
  const ms = Number.parseFloat(lower['retry-after-ms'] ?? '')
  if (Number.isFinite(ms) && ms >= 0) return ms
  const raw = lower['retry-after']
  if (raw === undefined) return undefined
  const seconds = Number.parseFloat(raw)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(raw)
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined
}

/** How much of a non-JSON error body to quote (HTML error pages can be huge). */
const RAW_BODY_QUOTE = 200

/** The provider's own error text, if the body is the usual {error:{message}} JSON. */
function providerMessage(body: string | undefined): string | undefined {
  if (!body) return undefined
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown }
    if (typeof parsed.error === 'string') return parsed.error
    if (parsed.error && typeof parsed.error.message === 'string') return parsed.error.message
    if (typeof parsed.message === 'string') return parsed.message
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.slice(0, RAW_BODY_QUOTE)
}

/** True for the errors abort() produces (DOMException or Error named AbortError/TimeoutError). */
export function isAbortError(error: unknown): boolean {
  return (
    (error instanceof Error ||
      (typeof DOMException !== 'undefined' && error instanceof DOMException)) &&
    ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError')
  )
}

/** Map anything a provider threw to an LlmError; `who` names the provider in the message. */
export function toLlmError(error: unknown, who: string): LlmError {
  if (error instanceof LlmError) return error
  const api = asApiCallError(error)
  const status = api?.statusCode
  if (api && status !== undefined) {
    const detail = providerMessage(api.responseBody) ?? api.message
    if (status === 401 || status === 403) {
      return new LlmAuthError(`${who} rejected the API key (${status}): ${detail}`, {
        cause: error,
      })
    }
    if (status === 429 || status === 529) {
      const after = parseRetryAfter(api.responseHeaders)
      const hint = after !== undefined ? `; retry after ${Math.ceil(after / 1000)} s` : ''
      return new LlmRateLimitError(`${who} is rate limiting (${status})${hint}: ${detail}`, after, {
        cause: error,
      })
    }
    return new LlmOtherError(
      `${who} answered ${status}: ${detail}`,
      api.isRetryable ?? status >= 500,
      {
        cause: error,
      },
    )
  }
  const message = error instanceof Error ? error.message : String(error)
  if (
    api ||
    (error instanceof TypeError && NETWORK_FAILURE.test(message)) ||
    NETWORK_FAILURE.test(message)
  ) {
    return new LlmUnreachableError(
      `cannot reach ${who} (network, DNS, connection refused or blocked by CORS): ${message}`,
      { cause: error },
    )
  }
  return new LlmOtherError(`${who}: ${message}`, false, { cause: error })
}
