import { describe, expect, it } from 'vitest'
import {
  keepaliveMs,
  MAX_KEEPALIVE_MS,
  MIN_BEAT_GAP_MS,
  PRESENCE_INTERVAL_MS,
  presenceTtlMs,
  QUIET_KEEPALIVE_MS,
  OVER_ROOM_AFTER_MS,
  QUIET_ROOM_AFTER_MS,
} from '../protocol/rules'
import type { Presence } from '../protocol/records'
import { createView, hearPresence, isAlive } from './view'
import { newCancel, newGoal } from '../protocol/records'
import { createRng } from '../sim/rng'
import { fakePeerId } from '../sim/swarm'
import { createPeer, step, type Effects } from './index'
import type { LlmOutcome } from './llm-contract'
import { beatEvery, beatKey, shouldBeat, type BeatInput } from './presence'

const idle: BeatInput = {
  now: 100_000,
  lastBeatAt: 100_000 - 1_000,
  lastEvery: 64_000,
  holding: false,
  known: 63,
  changed: false,
  newcomer: false,
}

describe('presence beats (presence.ts)', () => {
  it('an idle peer keeps the room to about one keepalive a second, whatever its size', () => {
    for (const peers of [16, 64, 1_000]) {
      const every = beatEvery(false, peers - 1)
      // beats the whole room sends per second
      expect(peers / (every / 1_000)).toBeCloseTo(1, 5)
    }
    // a small room beats as often as before, never more
    expect(beatEvery(false, 3)).toBe(PRESENCE_INTERVAL_MS)
    expect(keepaliveMs(1_000_000)).toBe(MAX_KEEPALIVE_MS)
  })

  it('a holder renews its leases every PRESENCE_INTERVAL_MS in any room', () => {
    expect(beatEvery(true, 999)).toBe(PRESENCE_INTERVAL_MS)
    const due = { ...idle, holding: true, lastEvery: 5_000 }
    expect(shouldBeat({ ...due, lastBeatAt: due.now - 4_999 })).toBe(false)
    expect(shouldBeat({ ...due, lastBeatAt: due.now - 5_000 })).toBe(true)
  })

  it('an idle peer beats at its keepalive, not before', () => {
    expect(shouldBeat({ ...idle, lastBeatAt: idle.now - 63_999 })).toBe(false)
    expect(shouldBeat({ ...idle, lastBeatAt: idle.now - 64_000 })).toBe(true)
  })

  it('keeps the promise of its last beat when its gap has grown since', () => {
    // it promised 5 s (it held a task, or knew few peers); now it would wait 64 s
    const input = { ...idle, lastEvery: 5_000, lastBeatAt: idle.now - 5_000 }
    expect(shouldBeat(input)).toBe(true)
  })

  it('beats a change at once, but not more often than MIN_BEAT_GAP_MS', () => {
    expect(shouldBeat({ ...idle, changed: true, lastBeatAt: idle.now - MIN_BEAT_GAP_MS })).toBe(
      true,
    )
    expect(shouldBeat({ ...idle, changed: true, lastBeatAt: idle.now - MIN_BEAT_GAP_MS + 1 })).toBe(
      false,
    )
  })

  it('answers newcomers in one beat per gap that grows with the room', () => {
    // 64 peers: at most every 3.2 s; 1,000 peers: every 50 s
    expect(shouldBeat({ ...idle, newcomer: true, lastBeatAt: idle.now - 3_199 })).toBe(false)
    expect(shouldBeat({ ...idle, newcomer: true, lastBeatAt: idle.now - 3_200 })).toBe(true)
    const big = { ...idle, known: 999, lastEvery: 1_000_000, newcomer: true }
    expect(shouldBeat({ ...big, lastBeatAt: big.now - 49_999 })).toBe(false)
    expect(shouldBeat({ ...big, lastBeatAt: big.now - 50_000 })).toBe(true)
    // a small room answers within MIN_BEAT_GAP_MS, as before
    expect(shouldBeat({ ...idle, known: 3, newcomer: true, lastBeatAt: idle.now - 500 })).toBe(true)
  })

  it('takes a peer for gone after three of the gaps it promised', () => {
    expect(presenceTtlMs(PRESENCE_INTERVAL_MS)).toBe(16_000)
    expect(presenceTtlMs(64_000)).toBe(193_000)
  })

  it('counts only what others act on as a change: health and settings', () => {
    const base = { healthy: true, capabilities: ['can_write_text'], model: 'm', offline: false }
    expect(beatKey({ ...base })).toBe(beatKey(base))
    expect(beatKey({ ...base, healthy: false })).not.toBe(beatKey(base))
    expect(beatKey({ ...base, capabilities: [] })).not.toBe(beatKey(base))
    expect(beatKey({ ...base, model: 'n' })).not.toBe(beatKey(base))
    expect(beatKey({ ...base, offline: true })).not.toBe(beatKey(base))
  })
})

describe('a quiet room (no plan record for QUIET_ROOM_AFTER_MS)', () => {
  const peerIn = (seed: string) =>
    createPeer(
      {
        peerId: fakePeerId(createRng(seed)),
        room: 'r',
        role: 'scorer',
        capabilities: [],
        capacity: 1,
        model: 'm',
        offline: true,
      },
      0,
    )
  const beatsOf = (fx: Effects) =>
    fx.publish.filter((record): record is Presence => record.kind === 'presence')

  it('an idle peer stretches its keepalive to QUIET_KEEPALIVE_MS, never a holder', () => {
    expect(beatEvery(false, 3, true)).toBe(QUIET_KEEPALIVE_MS)
    expect(beatEvery(true, 3, true)).toBe(PRESENCE_INTERVAL_MS)
    // a room so big that its keepalive is already longer keeps it
    expect(beatEvery(false, 63, true)).toBe(keepaliveMs(64))
  })

  it('beats every 30 s once the room is quiet, and at its busy gap as soon as a record comes', () => {
    const peer = peerIn('quiet-room')
    const beats: Array<{ at: number; every: number }> = []
    let t = 0
    for (; t < QUIET_ROOM_AFTER_MS + 2 * QUIET_KEEPALIVE_MS; t += 250) {
      for (const b of beatsOf(step(peer, { type: 'tick' }, t)))
        beats.push({ at: t, every: b.every })
    }
    const quiet = beats.filter((b) => b.at >= QUIET_ROOM_AFTER_MS)
    expect(quiet.map((b) => b.every)).toEqual([QUIET_KEEPALIVE_MS, QUIET_KEEPALIVE_MS])
    expect(quiet[1]!.at - quiet[0]!.at).toBe(QUIET_KEEPALIVE_MS)
    // before it, the busy keepalive (alone in the room: PRESENCE_INTERVAL_MS)
    expect(
      beats
        .filter((b) => b.at < QUIET_ROOM_AFTER_MS)
        .every((b) => b.every === PRESENCE_INTERVAL_MS),
    ).toBe(true)
    // a goal arrives 10 s after the last quiet beat: the next step beats with the busy gap
    t = quiet[1]!.at + 10_000
    const fx = step(peer, { type: 'record', record: newGoal('r', 'someone', 'g', t, 2) }, t)
    expect(beatsOf(fx).map((b) => b.every)).toEqual([PRESENCE_INTERVAL_MS])
  })

  it('is quiet OVER_ROOM_AFTER_MS after the last record once every goal is over, a minute while one is open', () => {
    const firstQuietBeat = (cancel: boolean) => {
      const peer = peerIn(`over-${cancel}`)
      const goal = newGoal('r', 'someone', 'g', 0, 2)
      const records = cancel ? [goal, newCancel('r', 'someone', goal.id, 1_000)] : [goal]
      step(
        peer,
        records.map((record) => ({ type: 'record' as const, record })),
        1_000,
      )
      for (let t = 1_000; t < 1_000 + 2 * QUIET_ROOM_AFTER_MS; t += 250) {
        const quiet = beatsOf(step(peer, { type: 'tick' }, t)).find(
          (b) => b.every === QUIET_KEEPALIVE_MS,
        )
        if (quiet) return t - 1_000
      }
      return null
    }
    const over = firstQuietBeat(true)!
    expect(over).toBeGreaterThanOrEqual(OVER_ROOM_AFTER_MS)
    expect(over).toBeLessThan(OVER_ROOM_AFTER_MS + PRESENCE_INTERVAL_MS + 1_000)
    const open = firstQuietBeat(false)!
    expect(open).toBeGreaterThanOrEqual(QUIET_ROOM_AFTER_MS)
  })

  it('others keep a quiet peer alive for three of its gaps, then take it for gone', () => {
    const quietPeer = peerIn('quiet-other')
    const beat = beatsOf(step(quietPeer, { type: 'tick' }, 0))[0]!
    const view = createView()
    hearPresence(view, { ...beat, every: QUIET_KEEPALIVE_MS }, 0)
    expect(presenceTtlMs(QUIET_KEEPALIVE_MS)).toBe(181_000)
    expect(isAlive(view, beat.from, 181_000)).toBe(true)
    expect(isAlive(view, beat.from, 181_001)).toBe(false)
  })
})

describe('a peer whose slots fill up and free again', () => {
  // nobody ranks a decomposer by its free slots, and an executor's slots are
  // the tasks it holds, which others count from claims and results (view.ts)
  it('sends no beat for it', () => {
    const peer = createPeer(
      {
        peerId: fakePeerId(createRng('presence-test')),
        room: 'r',
        role: 'decomposer',
        capabilities: [],
        capacity: 1,
        model: 'm',
        offline: true,
      },
      0,
    )
    const beats = (fx: Effects) => fx.publish.filter((record) => record.kind === 'presence')
    expect(beats(step(peer, { type: 'tick' }, 0))).toHaveLength(1) // every peer beats at start
    // alone, it has joined after 6 s and may work 1.5 s later; its next keepalive is due at 5 s
    step(peer, { type: 'tick' }, 5_000)
    step(peer, { type: 'tick' }, 8_000)
    const submitted = step(
      peer,
      { type: 'record', record: newGoal('r', peer.config.peerId, 'g', 8_000, 2) },
      8_000,
    )
    expect(submitted.startLlm).toHaveLength(1) // its one slot is now in use
    expect(beats(submitted)).toHaveLength(0)
    const proposed = step(
      peer,
      { type: 'llm', requestId: submitted.startLlm[0]!.id, outcome: decomposed },
      9_000,
    )
    expect(proposed.publish.map((record) => record.kind)).toEqual(['proposal'])
  })
})

const decomposed: LlmOutcome = {
  ok: true,
  kind: 'decompose',
  value: {
    subgoals: [
      { text: 'a', dependsOn: [] },
      { text: 'b', dependsOn: [] },
    ],
    rationale: 'r',
  },
  usage: { provider: 'sim', model: 'm', inputTokens: 1, outputTokens: 1, offline: true },
  attempts: 1,
}
