/** Pure tests of the wire codecs, backoff and strikes (no network). */
import { describe, expect, it } from 'vitest'
import { decodeUvarint, encodeUvarint, hexToBytes, bytesToHex } from './bytes'
import { ProtocolViolationError, InvalidRoomError } from './errors'
import { decodeJoin, decodePeers, encodeJoin, encodePeers, checkRoom } from './discovery-wire'
import {
  FrameType,
  decodeFrame,
  encodeEnd,
  encodeHello,
  encodeMessage,
  encodeRecord,
  encodeWantFrames,
  isWireId,
} from './sync-wire'
import type { Range } from '../protocol/reconcile'
import { Strikes } from './strikes'
import { backoff } from './backoff'
import { MAX_ROOM_BYTES } from './constants'

const PEER_A = '12D3KooWQFEixa16JoXBDxgDrRsXqyCD4VY5B25vGmUyGQp4sFLu'
const PEER_B = '12D3KooWRDF4LiKbBMFEcTBkoDqJnrodMDzYFqcqsDNh5U1AuCLB'
const enc = (s: string) => new TextEncoder().encode(s)

describe('bytes', () => {
  it('round-trips uvarints, including multi-byte ones', () => {
    for (const n of [0, 1, 127, 128, 300, 16_384, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
      const b = encodeUvarint(n)
      expect(decodeUvarint(b, 0)).toEqual([n, b.length])
    }
    expect(() => decodeUvarint(Uint8Array.of(0x80, 0x80), 0)).toThrow(ProtocolViolationError)
  })

  it('accepts only lowercase even-length hex as ids', () => {
    expect(bytesToHex(hexToBytes('00ff10') as Uint8Array)).toBe('00ff10')
    expect(hexToBytes('ABCD')).toBeUndefined()
    expect(hexToBytes('abc')).toBeUndefined()
    expect(hexToBytes('')).toBeUndefined()
    expect(isWireId('ab'.repeat(64))).toBe(true)
    expect(isWireId('ab'.repeat(65))).toBe(false)
  })
})

describe('discovery wire', () => {
  it('round-trips join and peers frames', () => {
    expect(decodeJoin(encodeJoin({ room: 'r1' }))).toEqual({ room: 'r1' })
    expect(decodePeers(encodePeers({ room: 'r1', peers: [PEER_A, PEER_B] }))).toEqual({
      room: 'r1',
      peers: [PEER_A, PEER_B],
      dropped: 0,
    })
  })

  it('carries who asks to be relayed, and the answers (fallback.ts)', () => {
    expect(decodeJoin(encodeJoin({ room: 'r1', fallback: 'no-webrtc' }))).toEqual({
      room: 'r1',
      fallback: 'no-webrtc',
    })
    expect(() => decodeJoin(enc('{"room":"r","fallback":"maybe"}'))).toThrow(ProtocolViolationError)
    const fallback = {
      [PEER_A]: { cause: 'ice-failed' as const, relaying: 'granted' as const },
      [PEER_B]: { cause: 'no-webrtc' as const, relaying: 'off' as const },
    }
    expect(decodePeers(encodePeers({ room: 'r1', peers: [PEER_A], fallback }))).toEqual({
      room: 'r1',
      peers: [PEER_A],
      fallback,
      dropped: 0,
    })
    // a frame without it (an older relay) is a frame without relayed peers
    expect(encodePeers({ room: 'r', peers: [], fallback: {} })).toEqual(
      enc('{"room":"r","peers":[]}'),
    )
    // bad entries are dropped and counted, a bad field refused
    const junk = enc(
      JSON.stringify({
        room: 'r',
        peers: [],
        fallback: {
          [PEER_A]: { cause: 'no-webrtc', relaying: 'granted' },
          nope: { cause: 'no-webrtc', relaying: 'granted' },
          [PEER_B]: { cause: 'teleport', relaying: 'granted' },
        },
      }),
    )
    expect(decodePeers(junk)).toEqual({
      room: 'r',
      peers: [],
      fallback: { [PEER_A]: { cause: 'no-webrtc', relaying: 'granted' } },
      dropped: 2,
    })
    expect(() => decodePeers(enc('{"room":"r","peers":[],"fallback":[]}'))).toThrow(
      ProtocolViolationError,
    )
  })

  it('drops invalid peer ids and refuses malformed frames', () => {
    const frame = enc(JSON.stringify({ room: 'r', peers: [PEER_A, 'nope', 42] }))
    expect(decodePeers(frame)).toEqual({ room: 'r', peers: [PEER_A], dropped: 2 })
    for (const junk of ['', 'null', '[]', '{"room":1}', '{"room":""}', '{"room":"r"}', '\xff']) {
      expect(() => decodePeers(enc(junk))).toThrow(ProtocolViolationError)
    }
    expect(() => decodeJoin(Uint8Array.of(0xc3, 0x28))).toThrow(ProtocolViolationError)
    expect(() => checkRoom('x'.repeat(MAX_ROOM_BYTES + 1))).toThrow(InvalidRoomError)
  })
})

describe('sync wire', () => {
  it('round-trips every frame type', () => {
    const fingerprint = Uint8Array.from({ length: 16 }, (_, i) => i)
    const hello = decodeFrame(encodeHello({ room: 'room', count: 2, fingerprint }))
    expect(hello).toEqual({
      type: FrameType.HELLO,
      hello: { version: 2, room: 'room', count: 2, fingerprint },
    })
    const ids = ['00', 'ab'.repeat(32), 'ff'.repeat(64)]
    const frames = encodeWantFrames(ids, 2)
    expect(frames.length).toBe(2)
    expect(frames.flatMap((f) => (decodeFrame(f) as { ids: string[] }).ids)).toEqual(ids)
    const ranges: Range[] = [
      { upper: '10', mode: 'skip' },
      { upper: '20', mode: 'fingerprint', fingerprint },
      { upper: '30', mode: 'idlist', ids: ['21', '22'], gone: ['23'] },
      { upper: null, mode: 'have', ids: ['31', 'ff'.repeat(64)] },
    ]
    const message = encodeMessage(ranges, 30)
    expect(message.length).toBeGreaterThan(2) // cut into several RANGES frames
    const decoded = message.map((f) => decodeFrame(f))
    expect(decoded.at(-1)).toEqual({ type: FrameType.ROUND_END })
    expect(decoded.flatMap((f) => ('ranges' in f ? f.ranges : []))).toEqual(ranges)
    expect(decodeFrame(encodeRecord(Uint8Array.of(1, 2, 3)))).toEqual({
      type: FrameType.RECORD,
      record: Uint8Array.of(1, 2, 3),
    })
    expect(decodeFrame(encodeEnd(FrameType.WANT_END))).toEqual({ type: FrameType.WANT_END })
  })

  it('refuses junk frames with a ProtocolViolationError, never anything else', () => {
    const junk: Uint8Array[] = [
      new Uint8Array(0),
      Uint8Array.of(0x00),
      Uint8Array.of(0x42, 1, 2),
      Uint8Array.of(FrameType.HELLO),
      Uint8Array.of(FrameType.HELLO, 2, 200, 0x61),
      Uint8Array.of(FrameType.HELLO, 2, 1, 0x61, 0x02, 1, 2, 3),
      Uint8Array.of(FrameType.WANT, 0),
      Uint8Array.of(FrameType.WANT, 5, 1, 2),
      Uint8Array.of(FrameType.WANT, 65, ...new Uint8Array(65)),
      Uint8Array.of(FrameType.RANGES, 0, 9),
      Uint8Array.of(FrameType.RANGES, 0, 1, 1, 2),
      Uint8Array.of(FrameType.RANGES, 0, 3, 100, 1, 0xaa),
      Uint8Array.of(FrameType.RANGES, 0, 2, 1, 1, 0xaa),
      Uint8Array.of(FrameType.ROUND_END, 0),
    ]
    for (const f of junk) expect(() => decodeFrame(f)).toThrow(ProtocolViolationError)
    // random bytes: decoded or refused, but never another kind of error
    for (let i = 0; i < 5_000; i++) {
      const f = Uint8Array.from({ length: 1 + (i % 50) }, () => Math.floor(Math.random() * 256))
      if (i % 3 === 0) f[0] = FrameType.RANGES
      try {
        decodeFrame(f)
      } catch (err) {
        expect(err).toBeInstanceOf(ProtocolViolationError)
      }
    }
  })
})

describe('strikes', () => {
  it('bans at the threshold, forgives over time, and lifts the ban after its duration', () => {
    let now = 0
    const banned: string[] = []
    const s = new Strikes({
      threshold: 3,
      banMs: 1_000,
      decayMs: 100,
      now: () => now,
      onBan: (p) => banned.push(p),
    })
    s.strike('p', 'x')
    s.strike('p', 'x')
    now += 250 // two strikes decay
    expect(s.strike('p', 'x')).toBe(false)
    expect(s.strike('p', 'x')).toBe(false)
    expect(s.strike('p', 'x')).toBe(true)
    expect(banned).toEqual(['p'])
    expect(s.isBanned('p')).toBe(true)
    expect(s.isBanned('q')).toBe(false)
    now += 1_000
    expect(s.isBanned('p')).toBe(false)
  })
})

describe('backoff', () => {
  it('grows exponentially to the cap, with jitter within ±25 %', () => {
    for (let attempt = 1; attempt <= 10; attempt++) {
      const base = Math.min(8_000, 500 * 2 ** (attempt - 1))
      const v = backoff(attempt, 500, 8_000)
      expect(v).toBeGreaterThanOrEqual(base * 0.75)
      expect(v).toBeLessThanOrEqual(base * 1.25)
    }
  })
})
