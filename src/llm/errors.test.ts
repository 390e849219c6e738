import { describe, expect, it } from 'vitest'
import {
  LlmAuthError,
  LlmOtherError,
  LlmNotFoundError,
  LlmRateLimitError,
  LlmUnreachableError,
  parseRetryAfter,
  toLlmError,
} from './errors'
import { costUsd, priceFor, priceKnown } from './pricing'
import type { LlmUsage } from './types'

/** The public shape of the AI SDK's APICallError (name + fields), which toLlmError reads. */
function apiCallError(fields: {
  statusCode?: number
  responseBody?: string
  responseHeaders?: Record<string, string>
  isRetryable?: boolean
}) {
  return Object.assign(new Error('API call failed'), { name: 'AI_APICallError', ...fields })
}

describe('toLlmError', () => {
  it('maps 401 and 403 to a bad-key error with the provider message', () => {
    const e = toLlmError(
      apiCallError({
        statusCode: 401,
        responseBody:
          '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
      }),
      'Anthropic',
    )
    expect(e).toBeInstanceOf(LlmAuthError)
    expect(e.kind).toBe('auth')
    expect(e.retryable).toBe(false)
    expect(e.message).toBe('Anthropic rejected the API key (401): invalid x-api-key')
    expect(toLlmError(apiCallError({ statusCode: 403 }), 'X').kind).toBe('auth')
  })

  it('maps 429 to a rate limit and reads retry-after', () => {
    const e = toLlmError(
      apiCallError({ statusCode: 429, responseHeaders: { 'retry-after': '7' } }),
      'OpenAI',
    )
    expect(e).toBeInstanceOf(LlmRateLimitError)
    expect((e as LlmRateLimitError).retryAfterMs).toBe(7_000)
    expect(e.message).toContain('retry after 7 s')
  })

  it('maps fetch failures (Node and browsers, CORS included) to unreachable', () => {
    expect(toLlmError(new TypeError('Failed to fetch'), 'X')).toBeInstanceOf(LlmUnreachableError)
    expect(
      toLlmError(new TypeError('NetworkError when attempting to fetch resource.'), 'X').kind,
    ).toBe('unreachable')
    expect(toLlmError(new TypeError('Load failed'), 'X').kind).toBe('unreachable')
    // The AI SDK wraps Node's "fetch failed" as an APICallError without a status.
    expect(toLlmError(apiCallError({ isRetryable: true }), 'X').kind).toBe('unreachable')
  })

  it('maps 5xx to a retryable "other" and 400 to a final one', () => {
    const five = toLlmError(apiCallError({ statusCode: 500 }), 'X')
    expect(five).toBeInstanceOf(LlmOtherError)
    expect(five.retryable).toBe(true)
    const four = toLlmError(apiCallError({ statusCode: 400, isRetryable: false }), 'X')
    expect(four).toBeInstanceOf(LlmOtherError)
    expect(four.retryable).toBe(false)
  })

  it('maps 404 to "not-found": the model or the address is wrong, final (issue 56)', () => {
    const missing = toLlmError(
      apiCallError({
        statusCode: 404,
        responseBody: '{"error":{"message":"model not found"}}',
        isRetryable: false,
      }),
      'X',
    )
    expect(missing).toBeInstanceOf(LlmNotFoundError)
    expect(missing.kind).toBe('not-found')
    expect(missing.retryable).toBe(false)
    expect(missing.message).toBe('X answered 404 (no such model or address): model not found')
  })

  it('keeps messages short enough for a failure record', () => {
    const e = toLlmError(apiCallError({ statusCode: 500, responseBody: 'x'.repeat(5_000) }), 'X')
    expect(e.message.length).toBeLessThanOrEqual(300)
  })

  it('parses every retry-after form', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '250' })).toBe(250)
    expect(parseRetryAfter({ 'Retry-After': '2' })).toBe(2_000)
    const date = new Date(Date.now() + 10_000).toUTCString()
    expect(parseRetryAfter({ 'retry-after': date })).toBeGreaterThan(8_000)
    expect(parseRetryAfter({})).toBeUndefined()
  })
})

describe('pricing', () => {
  const usage = (model: string, provider = 'anthropic', offline = false): LlmUsage => ({
    provider,
    model,
    inputTokens: 1_000_000,
    outputTokens: 100_000,
    offline,
  })

  it('prices known models by longest prefix, dated ids included', () => {
    expect(costUsd(usage('claude-sonnet-4-5-20250929'))).toBeCloseTo(3 + 1.5)
    expect(costUsd(usage('claude-opus-4-1-20250805'))).toBeCloseTo(15 + 7.5)
    expect(costUsd(usage('gpt-4o-mini-2024-07-18', 'openai'))).toBeCloseTo(0.15 + 0.06)
    expect(costUsd(usage('gpt-4o', 'openai'))).toBeCloseTo(2.5 + 1)
    expect(priceFor('anthropic/claude-haiku-4.5')).toEqual({ input: 1, output: 5 })
  })

  it('charges nothing for the offline model', () => {
    expect(costUsd(usage('offline-v1', 'offline', true))).toBe(0)
    expect(priceKnown('offline', 'offline-v1')).toBe(true)
  })

  it('does not know the cost of a model without a price: null, never $0', () => {
    expect(costUsd(usage('llama3.1:8b', 'openai-compatible'))).toBeNull()
    expect(costUsd(usage('gpt-4o1', 'openai'))).toBeNull()
    expect(priceFor('gpt-4o1')).toBeUndefined()
    expect(priceKnown('openai-compatible', 'llama3.1:8b')).toBe(false)
    expect(priceKnown('anthropic', 'claude-sonnet-4-5')).toBe(true)
  })

  it('charges nothing for a call refused before any token, priced or not (issue 56)', () => {
    const refused = {
      ...usage('llama3.1:8b', 'openai-compatible'),
      inputTokens: 0,
      outputTokens: 0,
    }
    expect(costUsd(refused)).toBe(0)
    expect(costUsd({ ...refused, model: 'claude-sonnet-4-5', provider: 'anthropic' })).toBe(0)
    // a search is paid even when the model's tokens were not counted
    expect(costUsd(refused, { webSearches: 1 })).toBeNull()
    expect(costUsd({ ...refused, provider: 'anthropic' }, { webSearches: 1 })).toBeNull()
  })
})
