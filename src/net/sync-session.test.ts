/** IdleWatch: the session's idle deadline, one timer however often it is pushed back. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { IdleWatch } from './sync-session'

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
