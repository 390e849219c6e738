import { describe, expect, it } from 'vitest'
import {
  dialsFallback,
  fallbackTargets,
  FALLBACK_MIN_FAILURES,
  ICE_FAILED_AFTER_MS,
  iceFailed,
  type FallbackState,
} from './fallback'

const granted = (cause: FallbackState['cause'] = 'no-webrtc'): FallbackState => ({
  cause,
  relaying: 'granted',
})
const room = Array.from({ length: 8 }, (_, i) => `12D3KooWpeer${i}`)

describe('who links through the relay', () => {
  it('a relayed peer links to its two ring neighbours, and they to it; nobody else does', () => {
    const f = room[3]!
    const fallback = new Map([[f, granted()]])
    const mine = fallbackTargets(f, room, fallback)
    expect(mine.size).toBe(2)
    // symmetric: each of its neighbours picks it, and no other peer does
    for (const other of room.filter((p) => p !== f)) {
      expect(fallbackTargets(other, room, fallback).has(f)).toBe(mine.has(other))
      // peers that both link directly have no relayed link between them
      for (const third of fallbackTargets(other, room, fallback)) expect(third).toBe(f)
    }
  })

  it('a refused peer is linked by nobody, and its neighbours close the ring around it', () => {
    const f = room[3]!
    const g = room[5]!
    const fallback = new Map<string, FallbackState>([
      [f, { cause: 'no-webrtc', relaying: 'off' }],
      [g, granted()],
    ])
    expect(fallbackTargets(f, room, fallback).size).toBe(0)
    for (const other of room) expect(fallbackTargets(other, room, fallback).has(f)).toBe(false)
    expect(fallbackTargets(g, room, fallback).size).toBe(2)
  })

  it('the relayed peer is the one dialled (its limits apply); between two, the lower dials', () => {
    const [a, b] = ['12D3KooWa', '12D3KooWb']
    const one = new Map([[b, granted()]])
    expect(dialsFallback(a, b, one)).toBe(true)
    expect(dialsFallback(b, a, one)).toBe(false)
    const both = new Map([
      [a, granted()],
      [b, granted('ice-failed')],
    ])
    expect(dialsFallback(a, b, both)).toBe(true)
    expect(dialsFallback(b, a, both)).toBe(false)
  })
})

describe('every direct attempt failed', () => {
  const failed = Array(2).fill(FALLBACK_MIN_FAILURES)
  it('only after a long wait, never once linked, and with every peer failed enough', () => {
    expect(
      iceFailed({ knownSince: 0, everLinked: false, failures: failed }, ICE_FAILED_AFTER_MS),
    ).toBe(true)
    expect(
      iceFailed({ knownSince: 0, everLinked: false, failures: failed }, ICE_FAILED_AFTER_MS - 1),
    ).toBe(false)
    expect(
      iceFailed({ knownSince: 0, everLinked: true, failures: failed }, 10 * ICE_FAILED_AFTER_MS),
    ).toBe(false)
    expect(
      iceFailed(
        { knownSince: 0, everLinked: false, failures: [FALLBACK_MIN_FAILURES, 1] },
        10 * ICE_FAILED_AFTER_MS,
      ),
    ).toBe(false)
    expect(
      iceFailed(
        { knownSince: undefined, everLinked: false, failures: [] },
        10 * ICE_FAILED_AFTER_MS,
      ),
    ).toBe(false)
    expect(
      iceFailed({ knownSince: 0, everLinked: false, failures: [] }, 10 * ICE_FAILED_AFTER_MS),
    ).toBe(false)
  })
})
