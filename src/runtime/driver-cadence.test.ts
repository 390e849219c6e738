import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Presence, WireRecord } from '../protocol/records'
import { createRng } from '../sim/rng'
import { fakePeerId } from '../sim/swarm'
import { createView, hearPresence, isAlive } from '../roles/view'
import { QUIET_ROOM_AFTER_MS } from '../protocol/rules'
import { QUIET_AFTER_MS, QUIET_ROOM_TICK_MS, QUIET_TICK_MS, TICK_MS, tickDelay } from './cadence'
import { CoreDriver } from './driver'

// A tab's core runs on timers. Hidden, Chromium fires a page's timers at most
// once a second, and after minutes hidden once a minute (intensive throttling,
// which pages holding WebRTC links are exempt from; docs/PERFORMANCE.md). Here
// the timers fire that late on purpose, and another peer's view of this one
// must never take it for gone.

describe('tick cadence (driver.ts)', () => {
  it('ticks fast while busy or just after an input, slowly once quiet', () => {
    const base = { tickMs: TICK_MS, quietTickMs: QUIET_TICK_MS }
    expect(tickDelay({ ...base, busy: true, sinceInputMs: 1e9 })).toBe(TICK_MS)
    expect(tickDelay({ ...base, busy: false, sinceInputMs: QUIET_AFTER_MS - 1 })).toBe(TICK_MS)
    expect(tickDelay({ ...base, busy: false, sinceInputMs: QUIET_AFTER_MS })).toBe(QUIET_TICK_MS)
  })

  it('ticks slower still once the room is quiet too, and fast again when busy', () => {
    const base = { tickMs: TICK_MS, quietTickMs: QUIET_TICK_MS, sinceInputMs: 1e9 }
    const roomQuiet = { ...base, roomQuiet: true }
    expect(tickDelay({ ...base, busy: false, roomQuiet: false })).toBe(QUIET_TICK_MS)
    expect(tickDelay({ ...roomQuiet, busy: false })).toBe(QUIET_ROOM_TICK_MS)
    // holding work (a long LLM call in a room that hears nothing else) keeps the fast tick
    expect(tickDelay({ ...roomQuiet, busy: true })).toBe(TICK_MS)
    // a record just heard is an input: the core is not quiet
    expect(tickDelay({ ...roomQuiet, busy: false, sinceInputMs: 0 })).toBe(TICK_MS)
  })
})

describe('a core whose timers fire late (a hidden tab)', () => {
  let driver: CoreDriver | null = null
  let beats: Array<{ at: number; beat: Presence }>
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 })
    beats = []
    driver = new CoreDriver({
      config: {
        peerId: fakePeerId(createRng('driver-cadence')),
        room: 'r',
        role: 'scorer',
        capabilities: [],
        capacity: 1,
        model: 'offline-v1',
        offline: true,
      },
      model: { provider: 'offline', model: 'offline-v1' },
      publish: (records: WireRecord[]) => {
        for (const r of records) if (r.kind === 'presence') beats.push({ at: Date.now(), beat: r })
      },
    })
  })
  afterEach(() => {
    driver?.stop()
    vi.useRealTimers()
  })

  /** wakes every `wakeMs` (throttled timers) for `totalMs` */
  function throttled(wakeMs: number, totalMs: number, watch: (now: number) => void): void {
    const end = Date.now() + totalMs
    while (Date.now() < end) {
      vi.setSystemTime(Date.now() + wakeMs)
      vi.runOnlyPendingTimers() // each due timer fires once, late, as a throttled page's do
      vi.runOnlyPendingTimers() // and the step each tick scheduled
      watch(Date.now())
    }
  }

  it('ticks once a second once quiet, every QUIET_ROOM_TICK_MS once its room is quiet, and is never taken for gone', () => {
    const view = createView()
    const spy = vi.spyOn(driver!, 'deliver')
    for (let t = 0; t < 10 * 60_000; t += 250) {
      vi.advanceTimersByTime(250)
      for (const { beat } of beats.splice(0)) hearPresence(view, beat, Date.now())
      expect(isAlive(view, driver!.peer.config.peerId, Date.now())).toBe(true)
    }
    const ticks = spy.mock.calls.filter(([inputs]) => inputs.some((i) => i.type === 'tick')).length
    // 10 minutes: 2,400 ticks at TICK_MS, 600 at QUIET_TICK_MS; here a minute
    // of those (the room is quiet after QUIET_ROOM_AFTER_MS), then QUIET_ROOM_TICK_MS
    // (plus the steps a beat of its own makes)
    const expected =
      QUIET_ROOM_AFTER_MS / QUIET_TICK_MS + (10 * 60_000 - QUIET_ROOM_AFTER_MS) / QUIET_ROOM_TICK_MS
    expect(ticks).toBeLessThan(expected * 1.25)
    expect(ticks).toBeGreaterThan(expected * 0.9)
  })

  it('keeps beating within its promise when timers fire once a second or once a minute', () => {
    for (const wake of [1_000, 60_000]) {
      const view = createView()
      const start = Date.now()
      throttled(wake, 10 * 60_000, (now) => {
        for (const { beat } of beats.splice(0)) hearPresence(view, beat, now)
        // once the room is quiet (a minute in), its beats promise 60 s: three gaps cover a wake-up a minute
        if (now - start >= 2 * 60_000) {
          expect(isAlive(view, driver!.peer.config.peerId, now)).toBe(true)
        }
      })
    }
  })
})

describe('the roster (a beat alone)', () => {
  afterEach(() => vi.useRealTimers())

  it('refreshes an idle observer when a peer joins or changes, not on a keepalive that changes nothing', () => {
    vi.useFakeTimers({ now: 1_000_000 })
    const rng = createRng('driver-roster')
    const rosters: string[][] = []
    const observer = new CoreDriver({
      config: {
        peerId: fakePeerId(rng),
        room: 'r',
        role: 'observer',
        capabilities: [],
        capacity: 1,
        model: 'offline-v1',
        offline: true,
      },
      model: { provider: 'offline', model: 'offline-v1' },
      publish: () => {},
      onTree: () => {},
      onActivity: (a) => rosters.push(a.swarm.map((p) => `${p.peerId}:${p.healthy}`)),
    })
    let beatsOf: Presence[] = []
    const other = new CoreDriver({
      config: {
        peerId: fakePeerId(rng),
        room: 'r',
        role: 'scorer',
        capabilities: [],
        capacity: 1,
        model: 'offline-v1',
        offline: true,
      },
      model: { provider: 'offline', model: 'offline-v1' },
      publish: (records) => {
        for (const r of records) if (r.kind === 'presence') beatsOf.push(r)
      },
    })
    try {
      vi.advanceTimersByTime(10_000) // both quiet; the observer's views settle
      const settled = rosters.length
      const hear = () => {
        observer.deliver(beatsOf.map((presence) => ({ type: 'presence' as const, presence })))
        beatsOf = []
        vi.advanceTimersByTime(1_000)
      }
      hear() // the scorer's beats so far: it joins the roster
      expect(rosters.length).toBeGreaterThan(settled)
      expect(rosters.at(-1)).toEqual([`${other.peer.config.peerId}:true`])
      const joined = rosters.length
      for (let i = 0; i < 20; i++) hear() // 20 s of keepalives that change nothing
      expect(rosters.length).toBe(joined)
      other.setModel({
        provider: 'openai-compatible',
        model: 'm2',
        baseUrl: 'http://127.0.0.1:9/v1',
      })
      for (let i = 0; i < 2; i++) hear() // its change is beaten at once and shows
      expect(rosters.length).toBe(joined + 1)
    } finally {
      observer.stop()
      other.stop()
    }
  })
})
