import { describe, expect, it } from 'vitest'
import { LlmOverloadedError, LlmRateLimitError } from './errors'
import {
  MAX_TOTAL_WAIT_MS,
  MAX_UNSIGNALLED_WAIT_MS,
  MAX_WAITS,
  MIN_SIGNALLED_WAIT_MS,
  rateLimitWait,
} from './wait-policy'

const limited = (ms?: number, source?: string) =>
  new LlmRateLimitError('slow down', ms, source ? { retrySource: source } : {})

describe('rateLimitWait', () => {
  it('waits as long as the provider said, and says where it read it', () => {
    expect(rateLimitWait(limited(20_000, 'body said try again in 20s'), 0, 0, 1_000)).toEqual({
      wait: true,
      ms: 20_000,
      why: 'body said try again in 20s',
      note: 'waited 20 s: rate limited (body said try again in 20s)',
    })
    expect(rateLimitWait(limited(2_500, 'retry-after-ms header: 2500'), 0, 0, 1_000).note).toBe(
      'waited 2.5 s: rate limited (retry-after-ms header: 2500)',
    )
  })

  it('never waits less than a moment on a signal rounded down to nothing', () => {
    expect(
      rateLimitWait(limited(0, 'x-ratelimit-reset-requests header: 0s'), 0, 0, 1_000),
    ).toMatchObject({
      wait: true,
      ms: MIN_SIGNALLED_WAIT_MS,
    })
  })

  it('backs off, doubling up to a ceiling, when the provider gave no wait', () => {
    const waits = [0, 1, 2, 3, 4, 5, 6].map((n) => rateLimitWait(limited(), n, 0, 1_000))
    expect(waits.map((w) => (w.wait ? w.ms : -1))).toEqual([
      1_000,
      2_000,
      4_000,
      8_000,
      16_000,
      MAX_UNSIGNALLED_WAIT_MS,
      MAX_UNSIGNALLED_WAIT_MS,
    ])
    expect(rateLimitWait(new LlmOverloadedError('busy', undefined), 0, 0, 1_000).note).toBe(
      'waited 1 s: overloaded (no wait given; backing off)',
    )
  })

  it('gives up past the total bound or the number of waits, saying why', () => {
    const over = rateLimitWait(
      limited(360_000, 'x-ratelimit-reset-requests header: 6m0s'),
      0,
      0,
      1_000,
    )
    expect(over).toEqual({
      wait: false,
      note: `gave up: rate limited; waiting 360 s (x-ratelimit-reset-requests header: 6m0s) would pass the ${MAX_TOTAL_WAIT_MS / 1_000} s this call waits in all`,
    })
    expect(rateLimitWait(limited(30_000), 3, MAX_TOTAL_WAIT_MS - 20_000, 1_000)).toMatchObject({
      wait: false,
      note: expect.stringContaining('(100 s waited already)'),
    })
    expect(rateLimitWait(limited(1_000), MAX_WAITS, 0, 1_000)).toMatchObject({ wait: false })
  })
})
