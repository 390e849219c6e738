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
 *
 * What a 429, 529 or 503 says about waiting (headers, or "try again in 20s"
 * in the body), and whether a 400 means the prompt does not fit the model,
 * is read by backoff-signals.ts (issue 44).
 */
import { backoffSignal, isContextTooLong, isOverloaded, retryAfterHeader } from './backoff-signals'
import type { LlmErrorKind } from './types'

/** Messages end up in the UI and in failure records (detail <= 500 chars). */
export const MAX_ERROR_MESSAGE = 300

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim()
  return oneLine.length <= MAX_ERROR_MESSAGE
    ? oneLine
    : `${oneLine.slice(0, MAX_ERROR_MESSAGE - 1)}…`
}

/** What an LlmError was made from, besides its message. */
export interface LlmErrorOptions {
  cause?: unknown
  /** the HTTP status the provider answered, when it answered one */
  status?: number
}

export abstract class LlmError extends Error {
  abstract readonly kind: LlmErrorKind
  /** worth another attempt with the same settings */
  abstract readonly retryable: boolean
  /** the HTTP status the provider answered (429, 503, 500, …); none without an HTTP answer */
  readonly status: number | undefined
  constructor(message: string, options?: LlmErrorOptions) {
    super(clip(message), options)
    this.name = new.target.name
    this.status = options?.status
  }
}

/** 401/403: the key is missing, wrong or lacks access. Retrying will not help. */
export class LlmAuthError extends LlmError {
  readonly kind = 'auth'
  readonly retryable = false
}

/**
 * 404: the server does not know the model (Ollama's "model not found",
 * OpenAI's "does not exist"), or has nothing at the address (a base URL
 * without /v1). Retrying will not help: the settings must change.
 */
export class LlmNotFoundError extends LlmError {
  readonly kind = 'not-found'
  readonly retryable = false
}

/** No HTTP answer: network down, DNS, connection refused, or CORS blocked it. */
export class LlmUnreachableError extends LlmError {
  readonly kind = 'unreachable'
  readonly retryable = true
}

/**
 * 429: this peer is over the provider's limit; slow down. retryAfterMs and
 * retrySource when the provider said how long (backoff-signals.ts). Not a
 * failure of the task: runLlmTask waits it out without spending an attempt.
 */
export class LlmRateLimitError extends LlmError {
  readonly kind = 'rate-limit'
  readonly retryable = true
  /** where retryAfterMs came from ("retry-after header: 20", "body said try again in 20s") */
  readonly retrySource: string | undefined
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
    options?: LlmErrorOptions & { retrySource?: string },
  ) {
    super(message, options)
    this.retrySource = options?.retrySource
  }
}

/** 529 or 503: the provider (or a local server loading its model) is busy. Waited out like a 429. */
export class LlmOverloadedError extends LlmRateLimitError {}

/** The prompt does not fit the model's context window: no retry or wait will change that. */
export class LlmContextLengthError extends LlmError {
  readonly kind = 'other'
  readonly retryable = false
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
    options?: LlmErrorOptions,
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

/** Parse retry-after-ms / retry-after (seconds or an HTTP date) into milliseconds. */
export function parseRetryAfter(headers: Record<string, string> | undefined): number | undefined {
  return retryAfterHeader(headers)?.ms
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
        status,
      })
    }
    if (isContextTooLong(status, api.responseBody)) {
      return new LlmContextLengthError(
        `the prompt does not fit ${who}'s context window (${status}): ${detail}`,
        { cause: error, status },
      )
    }
    if (status === 404) {
      return new LlmNotFoundError(`${who} answered 404 (no such model or address): ${detail}`, {
        cause: error,
      })
    }
    const overloaded = status !== 429 && isOverloaded(status, api.responseBody)
    if (status === 429 || overloaded) {
      const signal = backoffSignal(api.responseHeaders, api.responseBody)
      const hint = signal !== undefined ? `; retry after ${Math.ceil(signal.ms / 1000)} s` : ''
      const what = overloaded ? 'is overloaded' : 'is rate limiting'
      const Kind = overloaded ? LlmOverloadedError : LlmRateLimitError
      return new Kind(`${who} ${what} (${status})${hint}: ${detail}`, signal?.ms, {
        cause: error,
        status,
        ...(signal ? { retrySource: signal.source } : {}),
      })
    }
    return new LlmOtherError(
      `${who} answered ${status}: ${detail}`,
      api.isRetryable ?? status >= 500,
      { cause: error, status },
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
