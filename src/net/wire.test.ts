/** Pure tests of the wire codecs, backoff and strikes (no network). */
import { describe, expect, it } from 'vitest'
import { decodeUvarint, encodeUvarint, hexToBytes, bytesToHex } from './bytes'
import { ProtocolViolationError, InvalidRoomError } from './errors'
import { decodeJoin, decodePeers, encodeJoin, encodePeers, checkRoom } from './discovery-wire'
import {
  FrameType,
  decodeFrame,
  digestIds,
  encodeEnd,
  encodeHello,
  encodeIdFrames,
  encodeRecord,
  isWireId,
} from './sync-wire'
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
    const digest = digestIds(['aa', 'bb'])
    const hello = decodeFrame(encodeHello({ room: 'room', count: 2, digest }))
    expect(hello).toEqual({
      type: FrameType.HELLO,
      hello: { version: 1, room: 'room', count: 2, digest },
    })
    const ids = ['00', 'ab'.repeat(32), 'ff'.repeat(64)]
    const frames = encodeIdFrames(FrameType.IDS, ids, 2)
    expect(frames.length).toBe(2)
    expect(frames.flatMap((f) => (decodeFrame(f) as { ids: string[] }).ids)).toEqual(ids)
    expect(decodeFrame(encodeRecord(Uint8Array.of(1, 2, 3)))).toEqual({
      type: FrameType.RECORD,
      record: Uint8Array.of(1, 2, 3),
    })
    expect(decodeFrame(encodeEnd(FrameType.WANT_END))).toEqual({ type: FrameType.WANT_END })
  })

  it('digests a set regardless of order', () => {
    expect(digestIds(['aa', 'bb', 'cc'])).toEqual(digestIds(['cc', 'aa', 'bb']))
    expect(digestIds(['aa', 'bb'])).not.toEqual(digestIds(['aa', 'bc']))
  })

  it('refuses junk frames with a ProtocolViolationError, never anything else', () => {
    const junk: Uint8Array[] = [
      new Uint8Array(0),
      Uint8Array.of(0x00),
      Uint8Array.of(0x42, 1, 2),
      Uint8Array.of(FrameType.HELLO),
      Uint8Array.of(FrameType.HELLO, 1, 200, 0x61),
      Uint8Array.of(FrameType.HELLO, 1, 1, 0x61, 0x02, 1, 2, 3),
      Uint8Array.of(FrameType.IDS, 0),
      Uint8Array.of(FrameType.IDS, 5, 1, 2),
      Uint8Array.of(FrameType.WANT, 65, ...new Uint8Array(65)),
      Uint8Array.of(FrameType.IDS_END, 0),
    ]
    for (const f of junk) expect(() => decodeFrame(f)).toThrow(ProtocolViolationError)
    // random bytes: decoded or refused, but never another kind of error
    for (let i = 0; i < 2_000; i++) {
      const f = Uint8Array.from({ length: 1 + (i % 50) }, () => Math.floor(Math.random() * 256))
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
