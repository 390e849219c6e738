/**
 * docs/test-vectors.json `sync.frames`, checked from docs/PROTOCOL.md §7
 * alone: every frame is spelled out here byte by byte with node:crypto's
 * SHA-256, none with the implementation's sync code.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

interface Frames {
  held: string[]
  split: { message: string; answer: string }
  have: {
    theirHeld: string[]
    theirArchived: string[]
    message: string
    answer: string
    asks: string[]
  }
  want: { ids: string[]; frame: string }
  record: { sealed: string; frame: string }
}
const vectors = JSON.parse(
  readFileSync(new URL('../../docs/test-vectors.json', import.meta.url), 'utf8'),
) as { sync: { frames: Frames } }
const v = vectors.sync.frames

/** uvarint (LEB128) */
function uvarint(n: number): Buffer {
  const out: number[] = []
  for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n & 0x7f) | 0x80)
  out.push(n)
  return Buffer.from(out)
}
/** u8 len ‖ id */
const idBytes = (id: string) =>
  Buffer.concat([Buffer.from([id.length / 2]), Buffer.from(id, 'hex')])
/** a frame as sent: uvarint length ‖ frame */
const sent = (frame: Buffer) => Buffer.concat([uvarint(frame.length), frame]).toString('hex')
/** §7.1: first 16 bytes of SHA-256(uvarint(count) ‖ (u8 len ‖ id)*) */
const fingerprint = (ids: string[]) =>
  createHash('sha256')
    .update(Buffer.concat([uvarint(ids.length), ...ids.map(idBytes)]))
    .digest()
    .subarray(0, 16)
const list = (ids: string[]) => Buffer.concat([uvarint(ids.length), ...ids.map(idBytes)])
const INFINITY = Buffer.from([0])

describe('sync frames (docs/test-vectors.json sync.frames)', () => {
  it('a mismatched fingerprint is answered by a split in 16, each sub-range with its fingerprint', () => {
    const held = v.held
    expect([...held].sort()).toEqual(held)
    // RANGES, bound infinity, mode 1 (fingerprint), 16 zero bytes
    expect(v.split.message).toBe(sent(Buffer.concat([Buffer.from([2, 0, 1]), Buffer.alloc(16)])))
    const n = held.length
    const parts: Buffer[] = [Buffer.from([2])]
    for (let k = 0; k < 16; k++) {
      const start = Math.floor((k * n) / 16)
      const end = Math.floor(((k + 1) * n) / 16)
      const bound = k === 15 ? INFINITY : idBytes(held[end]!)
      parts.push(bound, Buffer.from([1]), fingerprint(held.slice(start, end)))
    }
    expect(v.split.answer).toBe(sent(Buffer.concat(parts)))
  })

  it('an idlist is answered by a have of the ids in neither list, and the ids lacked are asked for', () => {
    const { theirHeld, theirArchived } = v.have
    // RANGES, bound infinity, mode 2 (idlist): held list, archived list
    expect(v.have.message).toBe(
      sent(Buffer.concat([Buffer.from([2, 0, 2]), list(theirHeld), list(theirArchived)])),
    )
    const theirs = new Set([...theirHeld, ...theirArchived])
    const have = v.held.filter((id) => !theirs.has(id))
    expect(have.length).toBeGreaterThan(0)
    // RANGES, bound infinity, mode 3 (have): one list (under 1,000 ids)
    expect(v.have.answer).toBe(sent(Buffer.concat([Buffer.from([2, 0, 3]), list(have)])))
    const held = new Set(v.held)
    expect(v.have.asks).toEqual(theirHeld.filter((id) => !held.has(id)))
    // an archived id is never asked for, even one the receiver lacked
    expect(v.have.asks.some((id) => theirArchived.includes(id))).toBe(false)
  })

  it('WANT asks for those ids; RECORD carries a sealed record', () => {
    expect(v.want.ids).toEqual(v.have.asks)
    expect(v.want.frame).toBe(sent(Buffer.concat([Buffer.from([4]), ...v.want.ids.map(idBytes)])))
    const sealed = Buffer.from(v.record.sealed, 'hex')
    expect(sealed[0]).toBe(2) // the seal's format byte (§0)
    expect(v.record.frame).toBe(sent(Buffer.concat([Buffer.from([6]), sealed])))
    // longer than 127 bytes: a two-byte length
    expect(v.record.frame.slice(0, 4)).toBe(uvarint(sealed.length + 1).toString('hex'))
  })
})
