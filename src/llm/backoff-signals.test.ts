import { describe, expect, it } from 'vitest'
import {
  backoffSignal,
  bodyRetryHint,
  isContextTooLong,
  isOverloaded,
  parseDuration,
  rateLimitResetHeaders,
  retryAfterHeader,
} from './backoff-signals'
import { LlmContextLengthError, LlmOverloadedError, LlmRateLimitError, toLlmError } from './errors'

/** The public shape of the AI SDK's APICallError (name + fields), which toLlmError reads. */
function apiCallError(fields: {
  statusCode?: number
  responseBody?: string
  responseHeaders?: Record<string, string>
}) {
  return Object.assign(new Error('API call failed'), { name: 'AI_APICallError', ...fields })
}

const NOW = Date.parse('2026-12-05T12:00:00Z')

describe('parseDuration', () => {
  it('reads Go-style and spelled-out durations', () => {
    expect(parseDuration('1s')).toBe(1_000)
    expect(parseDuration('6m0s')).toBe(360_000)
    expect(parseDuration('20ms')).toBe(20)
    expect(parseDuration('2.5s')).toBe(2_500)
    expect(parseDuration('1m30.5s')).toBe(90_500)
    expect(parseDuration('1h2m')).toBe(3_720_000)
    expect(parseDuration('20 seconds')).toBe(20_000)
    expect(parseDuration('7')).toBe(7_000)
  })

  it('refuses what is not a duration', () => {
    expect(parseDuration('soon')).toBeUndefined()
    expect(parseDuration('6 months')).toBeUndefined()
    expect(parseDuration('')).toBeUndefined()
  })
})

describe('retry-after headers', () => {
  it('reads retry-after-ms first, then retry-after in seconds or as an HTTP date', () => {
    expect(retryAfterHeader({ 'retry-after-ms': '250', 'retry-after': '9' })).toEqual({
      ms: 250,
      source: 'retry-after-ms header: 250',
    })
    expect(retryAfterHeader({ 'Retry-After': '20' })).toEqual({
      ms: 20_000,
      source: 'retry-after header: 20',
    })
    const date = new Date(NOW + 30_000).toUTCString()
    expect(retryAfterHeader({ 'retry-after': date }, NOW)).toEqual({
      ms: 30_000,
      source: `retry-after header: ${date}`,
    })
    // a date in the past: no wait
    expect(retryAfterHeader({ 'retry-after': new Date(NOW - 5_000).toUTCString() }, NOW)?.ms).toBe(
      0,
    )
    expect(retryAfterHeader({ 'retry-after': 'whenever' })).toBeUndefined()
    expect(retryAfterHeader({})).toBeUndefined()
  })
})

describe('rate limit reset headers', () => {
  it("waits for OpenAI's spent limit: requests or tokens", () => {
    const headers = {
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '6m0s',
      'x-ratelimit-remaining-tokens': '1200',
      'x-ratelimit-reset-tokens': '20ms',
    }
    expect(rateLimitResetHeaders(headers)).toEqual({
      ms: 360_000,
      source: 'x-ratelimit-reset-requests header: 6m0s',
    })
    expect(
      rateLimitResetHeaders({
        ...headers,
        'x-ratelimit-remaining-requests': '4',
        'x-ratelimit-remaining-tokens': '0',
      }),
    ).toEqual({ ms: 20, source: 'x-ratelimit-reset-tokens header: 20ms' })
  })

  it('takes the shortest reset when no limit says it is spent', () => {
    expect(
      rateLimitResetHeaders({
        'x-ratelimit-reset-requests': '1s',
        'x-ratelimit-reset-tokens': '6m0s',
      }),
    ).toEqual({ ms: 1_000, source: 'x-ratelimit-reset-requests header: 1s' })
  })

  it("reads Anthropic's reset times", () => {
    const at = new Date(NOW + 12_000).toISOString()
    expect(
      rateLimitResetHeaders(
        {
          'anthropic-ratelimit-input-tokens-remaining': '0',
          'anthropic-ratelimit-input-tokens-reset': at,
          'anthropic-ratelimit-requests-remaining': '40',
          'anthropic-ratelimit-requests-reset': new Date(NOW + 1_000).toISOString(),
        },
        NOW,
      ),
    ).toEqual({ ms: 12_000, source: `anthropic-ratelimit-input-tokens-reset header: ${at}` })
  })
})

describe('"try again in" in an error body', () => {
  it('reads the wait the body names', () => {
    const openai = JSON.stringify({
      error: {
        message:
          'Rate limit reached for gpt-4o-mini in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.',
        type: 'requests',
        code: 'rate_limit_exceeded',
      },
    })
    expect(bodyRetryHint(openai)).toEqual({ ms: 20_000, source: 'body said try again in 20s' })
    expect(bodyRetryHint('Please try again in 2.5s.')?.ms).toBe(2_500)
    expect(bodyRetryHint('Please try again in 1m30s')?.ms).toBe(90_000)
    expect(bodyRetryHint('try again in 120ms')?.ms).toBe(120)
    expect(bodyRetryHint('Please retry after 20 seconds.')?.ms).toBe(20_000)
    expect(bodyRetryHint('{"retryDelay": "17s"}')?.ms).toBe(17_000)
    expect(bodyRetryHint('please try again later')).toBeUndefined()
  })

  it('prefers retry-after headers, then the body, then the reset headers', () => {
    const body = 'Please try again in 20s'
    expect(backoffSignal({ 'retry-after': '3' }, body)?.ms).toBe(3_000)
    expect(backoffSignal({ 'x-ratelimit-reset-requests': '1s' }, body)?.ms).toBe(20_000)
    expect(backoffSignal({ 'x-ratelimit-reset-requests': '1s' }, 'slow down')?.ms).toBe(1_000)
    expect(backoffSignal(undefined, undefined)).toBeUndefined()
  })
})

describe('overload and context length', () => {
  it('knows an overloaded server', () => {
    expect(isOverloaded(529, '')).toBe(true)
    expect(isOverloaded(503, 'Loading model')).toBe(true)
    expect(
      isOverloaded(
        500,
        '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      ),
    ).toBe(true)
    expect(isOverloaded(500, 'internal error')).toBe(false)
  })

  it('knows a prompt too long for the model, in each provider’s words', () => {
    const said = [
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. (context_length_exceeded)",
      'prompt is too long: 210000 tokens > 200000 maximum',
      'the request exceeds the available context size, try increasing it',
      'Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 50000.',
    ]
    expect(said.map((body) => isContextTooLong(400, body))).toEqual([true, true, true, true])
    expect(isContextTooLong(413, '')).toBe(true)
    expect(isContextTooLong(400, 'model not found')).toBe(false)
    expect(isContextTooLong(401, 'prompt is too long')).toBe(false)
  })
})

describe('toLlmError with the signals', () => {
  it('a 429 whose only word on waiting is in its body waits that long', () => {
    const e = toLlmError(
      apiCallError({
        statusCode: 429,
        responseBody: '{"error":{"message":"Rate limit reached. Please try again in 20s."}}',
      }),
      'OpenAI',
    )
    expect(e).toBeInstanceOf(LlmRateLimitError)
    expect((e as LlmRateLimitError).retryAfterMs).toBe(20_000)
    expect((e as LlmRateLimitError).retrySource).toBe('body said try again in 20s')
  })

  it('529 and 503 are overloads, waited out like a rate limit', () => {
    for (const statusCode of [529, 503]) {
      const e = toLlmError(
        apiCallError({
          statusCode,
          responseBody:
            '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
          responseHeaders: { 'retry-after': '4' },
        }),
        'Anthropic',
      )
      expect(e).toBeInstanceOf(LlmOverloadedError)
      expect(e.kind).toBe('rate-limit')
      expect(e.message).toBe(`Anthropic is overloaded (${statusCode}); retry after 4 s: Overloaded`)
      expect((e as LlmOverloadedError).retryAfterMs).toBe(4_000)
    }
  })

  it('a context-length error is final, not retried', () => {
    const e = toLlmError(
      apiCallError({
        statusCode: 400,
        responseBody:
          '{"error":{"message":"This model\'s maximum context length is 8192 tokens.","code":"context_length_exceeded"}}',
      }),
      'OpenAI',
    )
    expect(e).toBeInstanceOf(LlmContextLengthError)
    expect(e.retryable).toBe(false)
    expect(e.message).toMatch(/^the prompt does not fit OpenAI's context window \(400\)/)
  })
})
