/**
 * IdleWatch: the session's idle deadline, one timer however often it is
 * pushed back. syncAgain: when the swarm syncs again after a session.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { SYNC_MAX_RETRIES, SYNC_RETRY_DELAY_MS } from './constants'
import { emptyReport, IdleWatch, syncAgain } from './sync-session'
import type { SyncReport } from './types'

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

describe('IdleWatch', () => {
  it('fires `ms` after the last arm, not after the first', () => {
    let idle = 0
    const watch = new IdleWatch(1_000, () => idle++)
    watch.arm()
    for (let t = 0; t < 10; t++) {
      vi.advanceTimersByTime(400)
      watch.arm() // a frame every 400 ms: never idle
    }
    expect(idle).toBe(0)
    vi.advanceTimersByTime(999)
    expect(idle).toBe(0)
    vi.advanceTimersByTime(1)
    expect(idle).toBe(1)
  })

  it('sets one timer however many frames push the deadline back', () => {
    // a spy over the real setTimeout: one laid over the fake timers survived
    // useRealTimers and left the next test file's timers fake (files share a
    // worker's globals, vitest.config.ts isolate: false)
    vi.useRealTimers()
    const set = vi.spyOn(globalThis, 'setTimeout')
    const watch = new IdleWatch(5_000, () => {})
    for (let i = 0; i < 10_000; i++) watch.arm()
    expect(set).toHaveBeenCalledTimes(1)
    watch.stop()
    set.mockRestore()
  })

  it('does not fire once stopped (waiting on our own checks), and watches again when armed', () => {
    let idle = 0
    const watch = new IdleWatch(1_000, () => idle++)
    watch.arm()
    watch.stop()
    vi.advanceTimersByTime(5_000)
    expect(idle).toBe(0)
    expect(vi.getTimerCount()).toBe(0)
    watch.arm()
    vi.advanceTimersByTime(1_000)
    expect(idle).toBe(1)
  })
})

describe('syncAgain', () => {
  const report = (over: Partial<SyncReport>): SyncReport => ({
    ...emptyReport('p', true, Date.now()),
    ...over,
  })

  it('goes on at once after a session that brought records and left more (a late join)', () => {
    expect(syncAgain(report({ accepted: 5_000, deferred: 1 }), 2)).toEqual({
      retries: 0,
      delayMs: 0,
    })
  })

  it('waits SYNC_RETRY_DELAY_MS after a fruitless or failed one, SYNC_MAX_RETRIES times in a row', () => {
    expect(syncAgain(report({ missing: 3 }), 0)).toEqual({
      retries: 0,
      delayMs: SYNC_RETRY_DELAY_MS,
    })
    expect(syncAgain(report({ deferred: 1, error: 'gone' }), 1).delayMs).toBe(SYNC_RETRY_DELAY_MS)
    expect(syncAgain(report({ accepted: 10, missing: 2 }), 2)).toEqual({
      retries: 0,
      delayMs: SYNC_RETRY_DELAY_MS,
    })
    expect(syncAgain(report({ missing: 3 }), SYNC_MAX_RETRIES).delayMs).toBeUndefined()
  })

  it('stops when nothing is left, and forgets the count', () => {
    expect(syncAgain(report({ accepted: 7 }), 2)).toEqual({ retries: 0, delayMs: undefined })
    expect(syncAgain(report({}), 2)).toEqual({ retries: 0, delayMs: undefined })
  })
})
