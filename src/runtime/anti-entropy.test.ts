import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  AntiEntropyClock,
  ANTI_ENTROPY_INTERVAL_MS,
  ANTI_ENTROPY_QUIET_MAX_MS,
} from './anti-entropy'

describe('anti-entropy cadence (anti-entropy.ts)', () => {
  let rounds: number[]
  let clock: AntiEntropyClock | null
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 })
    rounds = []
    clock = new AntiEntropyClock({ round: () => rounds.push(Date.now()) })
  })
  afterEach(() => {
    clock?.stop()
    vi.useRealTimers()
  })

  it('spaces out rounds in a quiet room, doubling up to the cap', () => {
    vi.advanceTimersByTime(20_000 + 40_000 + 80_000 + 160_000 + 320_000 + 640_000)
    expect(rounds).toEqual([20_000, 60_000, 140_000, 300_000, 620_000, 1_260_000])
    expect(clock!.gap).toBe(ANTI_ENTROPY_QUIET_MAX_MS)
  })

  it('keeps the short gap while records come', () => {
    for (let t = 0; t < 100_000; t += 5_000) {
      clock!.recordArrived()
      vi.advanceTimersByTime(5_000)
    }
    expect(rounds).toEqual([20_000, 40_000, 60_000, 80_000, 100_000])
  })

  it('comes back to the short gap as soon as a record arrives after a quiet spell', () => {
    vi.advanceTimersByTime(620_000) // rounds at 20, 60, 140, 300, 620 s; the next is due at 1,260 s
    expect(clock!.gap).toBe(ANTI_ENTROPY_QUIET_MAX_MS)
    vi.advanceTimersByTime(10_000)
    clock!.recordArrived() // at 630 s
    vi.advanceTimersByTime(ANTI_ENTROPY_INTERVAL_MS)
    expect(rounds.at(-1)).toBe(630_000 + ANTI_ENTROPY_INTERVAL_MS)
  })

  it('runs no round once stopped', () => {
    clock!.stop()
    vi.advanceTimersByTime(1_000_000)
    expect(rounds).toEqual([])
  })
})
