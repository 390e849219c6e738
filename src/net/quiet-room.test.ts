// The quiet-room switch and the swarm's ticker (quiet-room.ts), and the
// connections summary's one-event-per-change (connection-summary.ts), on fake timers.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DIAL_RECHECK_MS, QUIET_LINKS_AFTER_MS, QUIET_TICK_MS } from './constants'
import { OVER_ROOM_AFTER_MS } from '../protocol/rules'
import { QuietRoom } from './quiet-room'
import { summaryNotifier } from './connection-summary'
import type { ConnectionSummary } from './types'

const QUIET_AFTER_MS = 10_000

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

function setup(quietAfterMs = QUIET_AFTER_MS) {
  const stop = new AbortController()
  const ticks: number[] = []
  const switches: boolean[] = []
  let changes = 0
  const room: QuietRoom = new QuietRoom({
    signal: stop.signal,
    tick: () => {
      ticks.push(Date.now())
      room.check()
    },
    onSwitch: (quiet) => switches.push(quiet),
    onChange: () => changes++,
    quietLinksAfterMs: quietAfterMs,
  })
  return { room, stop, ticks, switches, changes: () => changes }
}

describe('QuietRoom', () => {
  it('ticks every DIAL_RECHECK_MS awake, goes quiet after its idle time, then ticks every QUIET_TICK_MS', () => {
    const { room, ticks, switches } = setup()
    const start = Date.now()
    room.start()
    vi.advanceTimersByTime(QUIET_AFTER_MS - 1)
    expect(room.quiet).toBe(false)
    expect(ticks.length).toBe(Math.floor((QUIET_AFTER_MS - 1) / DIAL_RECHECK_MS))
    vi.advanceTimersByTime(DIAL_RECHECK_MS)
    expect(room.quiet).toBe(true)
    expect(switches).toEqual([true])
    const quietAt = ticks.at(-1)!
    vi.advanceTimersByTime(QUIET_TICK_MS * 2)
    expect(ticks.filter((t) => t > quietAt)).toEqual([
      quietAt + QUIET_TICK_MS,
      quietAt + 2 * QUIET_TICK_MS,
    ])
    expect(quietAt - start).toBeGreaterThanOrEqual(QUIET_AFTER_MS)
  })

  it('wakes at once on activity, its next tick DIAL_RECHECK_MS away, and reports the switch', () => {
    const { room, ticks, switches, changes } = setup()
    room.start()
    vi.advanceTimersByTime(QUIET_AFTER_MS + DIAL_RECHECK_MS)
    expect(room.quiet).toBe(true)
    const before = changes()
    const wokeAt = Date.now()
    room.active()
    expect(room.quiet).toBe(false)
    expect(switches).toEqual([true, false])
    expect(changes()).toBe(before + 1)
    const count = ticks.length
    vi.advanceTimersByTime(DIAL_RECHECK_MS)
    expect(ticks.slice(count)).toEqual([wokeAt + DIAL_RECHECK_MS])
  })

  it('goes quiet sooner once the plan is over', () => {
    expect(OVER_ROOM_AFTER_MS).toBeLessThan(QUIET_LINKS_AFTER_MS)
    const { room } = setup(QUIET_LINKS_AFTER_MS)
    room.start()
    vi.advanceTimersByTime(OVER_ROOM_AFTER_MS)
    expect(room.quiet).toBe(false)
    room.setPlanOver(true)
    vi.advanceTimersByTime(DIAL_RECHECK_MS)
    expect(room.quiet).toBe(true)
  })

  it('ticks no more once stopped', () => {
    const { room, stop, ticks } = setup()
    room.start()
    vi.advanceTimersByTime(DIAL_RECHECK_MS)
    expect(ticks.length).toBe(1)
    stop.abort()
    room.stop()
    vi.advanceTimersByTime(QUIET_TICK_MS * 4)
    expect(ticks.length).toBe(1)
  })
})

describe('summaryNotifier', () => {
  const summaryOf = (known: number) => ({ known }) as unknown as ConnectionSummary

  it('emits once per turn, and only a summary that changed', () => {
    let known = 1
    const emitted: ConnectionSummary[] = []
    const changed = summaryNotifier({
      summary: () => summaryOf(known),
      emit: (s) => emitted.push(s),
      signal: new AbortController().signal,
    })
    changed()
    changed()
    changed()
    expect(emitted).toEqual([]) // after the current turn, not in it
    vi.advanceTimersByTime(0)
    expect(emitted).toEqual([summaryOf(1)])
    changed()
    vi.advanceTimersByTime(0)
    expect(emitted.length).toBe(1) // the same summary again: no event
    known = 2
    changed()
    vi.advanceTimersByTime(0)
    expect(emitted).toEqual([summaryOf(1), summaryOf(2)])
  })

  it('emits nothing once the node stopped', () => {
    const stop = new AbortController()
    const emitted: ConnectionSummary[] = []
    const changed = summaryNotifier({
      summary: () => summaryOf(1),
      emit: (s) => emitted.push(s),
      signal: stop.signal,
    })
    changed()
    stop.abort()
    vi.advanceTimersByTime(0)
    changed()
    vi.advanceTimersByTime(0)
    expect(emitted).toEqual([])
  })
})
