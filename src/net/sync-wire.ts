/**
 * Wire format of /murmuration/sync/7.0.0 (anti-entropy by range-based set
 * reconciliation, reconcile.ts). Pure: no libp2p.
 *
 * Every frame is length-prefixed: an unsigned varint byte length, then that
 * many bytes, at most SYNC_MAX_FRAME_BYTES. The first byte of a frame is its
 * type; the rest is its body:
 *
 *   0x01 HELLO        u8 version (=2) | u8 roomLen | room (UTF-8)
 *                     | uvarint count of ids | 16-byte fingerprint of all ids
 *   0x02 RANGES       range*            part of one reconciliation message
 *   0x03 ROUND_END    (empty)           ends one reconciliation message
 *   0x04 WANT         ( u8 idLen | id bytes )*     ids asked for
 *   0x05 WANT_END     (empty)
 *   0x06 RECORD       the record's exact bytes
 *   0x07 RECORDS_END  (empty)
 *
 *   range = bound | u8 mode | payload
 *   bound = u8 len | id bytes      (len 0: infinity, the last range)
 *   mode 0 skip         (no payload)
 *   mode 1 fingerprint  16 bytes
 *   mode 2 idlist       list (held ids) | list (archived ids)
 *   mode 3 have         list
 *   list = uvarint n | ( u8 idLen | id bytes ){n}
 *
 * Ids are lowercase hex strings of even length; on the wire they are the
 * bytes they spell (1..SYNC_MAX_ID_BYTES).
 */
import { SYNC_MAX_ID_BYTES } from './constants'
import { ProtocolViolationError } from './errors'
import {
  bytesToHex,
  concat,
  decodeUvarint,
  encodeUvarint,
  fromUtf8,
  hexToBytes,
  utf8,
} from './bytes'
import { checkRoom } from './discovery-wire'
import { FINGERPRINT_BYTES, type Range } from '../protocol/reconcile'

export const SYNC_VERSION = 2

export const FrameType = {
  HELLO: 0x01,
  RANGES: 0x02,
  ROUND_END: 0x03,
  WANT: 0x04,
  WANT_END: 0x05,
  RECORD: 0x06,
  RECORDS_END: 0x07,
} as const
export type FrameTypeCode = (typeof FrameType)[keyof typeof FrameType]

const MODE = { skip: 0, fingerprint: 1, idlist: 2, have: 3 } as const

export interface Hello {
  version: number
  room: string
  count: number
  fingerprint: Uint8Array
}

type EndType = typeof FrameType.ROUND_END | typeof FrameType.WANT_END | typeof FrameType.RECORDS_END

export type Frame =
  | { type: typeof FrameType.HELLO; hello: Hello }
  | { type: typeof FrameType.RANGES; ranges: Range[] }
  | { type: typeof FrameType.WANT; ids: string[] }
  | { type: typeof FrameType.RECORD; record: Uint8Array }
  | { type: EndType }

export function encodeHello(h: Omit<Hello, 'version'>): Uint8Array {
  const room = utf8(checkRoom(h.room))
  if (h.fingerprint.length !== FINGERPRINT_BYTES) throw new RangeError('bad fingerprint length')
  return concat([
    Uint8Array.of(FrameType.HELLO, SYNC_VERSION, room.length),
    room,
    encodeUvarint(h.count),
    h.fingerprint,
  ])
}

/**
 * Whether an id can travel in sync frames: lowercase hex of 1 to
 * SYNC_MAX_ID_BYTES bytes. Asked of every id a store holds at each session,
 * so it reads char codes instead of decoding.
 */
export function isWireId(id: string): boolean {
  const n = id.length
  if (n === 0 || n % 2 !== 0 || n > SYNC_MAX_ID_BYTES * 2) return false
  for (let i = 0; i < n; i++) {
    const c = id.charCodeAt(i)
    // 0-9, a-f
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false
  }
  return true
}

function idBytes(id: string): Uint8Array {
  // hexToBytes checks what isWireId does but the length bound: one pass, not two
  const b = id.length <= SYNC_MAX_ID_BYTES * 2 ? hexToBytes(id) : undefined
  if (b === undefined) throw new RangeError(`bad id ${id}`)
  return b
}

function encodeIdList(ids: readonly string[]): Uint8Array[] {
  const parts: Uint8Array[] = [encodeUvarint(ids.length)]
  for (const id of ids) {
    const b = idBytes(id)
    parts.push(Uint8Array.of(b.length), b)
  }
  return parts
}

export function encodeRange(r: Range): Uint8Array {
  const bound = r.upper === null ? new Uint8Array(0) : idBytes(r.upper)
  const parts: Uint8Array[] = [Uint8Array.of(bound.length), bound, Uint8Array.of(MODE[r.mode])]
  if (r.mode === 'fingerprint') parts.push(r.fingerprint)
  else if (r.mode === 'have') parts.push(...encodeIdList(r.ids))
  else if (r.mode === 'idlist') parts.push(...encodeIdList(r.ids), ...encodeIdList(r.gone))
  return concat(parts)
}

/** One reconciliation message as RANGES frames of at most ~maxFrameBytes, then ROUND_END. */
export function encodeMessage(ranges: readonly Range[], maxFrameBytes: number): Uint8Array[] {
  const frames: Uint8Array[] = []
  let parts: Uint8Array[] = [Uint8Array.of(FrameType.RANGES)]
  let size = 1
  for (const r of ranges) {
    const e = encodeRange(r)
    if (size + e.length > maxFrameBytes && parts.length > 1) {
      frames.push(concat(parts))
      parts = [Uint8Array.of(FrameType.RANGES)]
      size = 1
    }
    parts.push(e)
    size += e.length
  }
  if (parts.length > 1) frames.push(concat(parts))
  frames.push(Uint8Array.of(FrameType.ROUND_END))
  return frames
}

/** WANT frames carrying `ids` (which must all pass isWireId), `perFrame` per frame. */
export function encodeWantFrames(ids: readonly string[], perFrame: number): Uint8Array[] {
  const frames: Uint8Array[] = []
  for (let i = 0; i < ids.length; i += perFrame) {
    const parts: Uint8Array[] = [Uint8Array.of(FrameType.WANT)]
    for (const id of ids.slice(i, i + perFrame)) {
      const b = idBytes(id)
      parts.push(Uint8Array.of(b.length), b)
    }
    frames.push(concat(parts))
  }
  return frames
}

export function encodeRecord(record: Uint8Array): Uint8Array {
  return concat([Uint8Array.of(FrameType.RECORD), record])
}

export function encodeEnd(type: EndType): Uint8Array {
  return Uint8Array.of(type)
}

function violation(msg: string): ProtocolViolationError {
  return new ProtocolViolationError(msg)
}

/** Reads one id (u8 len | bytes) at `o`; returns it and the offset after it. */
function readId(f: Uint8Array, o: number): [string, number] {
  const len = f[o]
  if (len === undefined || len === 0 || len > SYNC_MAX_ID_BYTES) throw violation('bad id length')
  if (o + 1 + len > f.length) throw violation('truncated id')
  return [bytesToHex(f.subarray(o + 1, o + 1 + len)), o + 1 + len]
}

function readIdList(f: Uint8Array, at: number): [string[], number] {
  let [n, o] = decodeUvarint(f, at)
  // each id takes at least 2 bytes: a count beyond that is a lie
  if (n * 2 > f.length - o) throw violation('id count exceeds frame')
  const ids: string[] = []
  for (; n > 0; n--) {
    let id: string
    ;[id, o] = readId(f, o)
    ids.push(id)
  }
  return [ids, o]
}

function decodeRanges(f: Uint8Array): Range[] {
  const ranges: Range[] = []
  let o = 1
  while (o < f.length) {
    let upper: string | null = null
    if (f[o] === 0) o += 1
    else [upper, o] = readId(f, o)
    const mode = f[o++]
    if (mode === MODE.skip) ranges.push({ upper, mode: 'skip' })
    else if (mode === MODE.fingerprint) {
      if (o + FINGERPRINT_BYTES > f.length) throw violation('truncated fingerprint')
      ranges.push({ upper, mode: 'fingerprint', fingerprint: f.slice(o, o + FINGERPRINT_BYTES) })
      o += FINGERPRINT_BYTES
    } else if (mode === MODE.have) {
      let ids: string[]
      ;[ids, o] = readIdList(f, o)
      ranges.push({ upper, mode: 'have', ids })
    } else if (mode === MODE.idlist) {
      let ids: string[]
      let gone: string[]
      ;[ids, o] = readIdList(f, o)
      ;[gone, o] = readIdList(f, o)
      ranges.push({ upper, mode: 'idlist', ids, gone })
    } else throw violation(`unknown range mode ${String(mode)}`)
  }
  return ranges
}

/** Decodes one frame (without its length prefix). Throws ProtocolViolationError. */
export function decodeFrame(f: Uint8Array): Frame {
  const type = f[0]
  switch (type) {
    case FrameType.HELLO: {
      const version = f[1]
      const roomLen = f[2]
      if (version === undefined || roomLen === undefined) throw violation('truncated HELLO')
      if (3 + roomLen > f.length) throw violation('truncated HELLO room')
      let room: string
      try {
        room = checkRoom(fromUtf8(f.subarray(3, 3 + roomLen)))
      } catch (err) {
        throw violation(`bad HELLO room: ${(err as Error).message}`)
      }
      const [count, next] = decodeUvarint(f, 3 + roomLen)
      if (f.length !== next + FINGERPRINT_BYTES) throw violation('bad HELLO length')
      return { type, hello: { version, room, count, fingerprint: f.slice(next) } }
    }
    case FrameType.RANGES:
      return { type, ranges: decodeRanges(f) }
    case FrameType.WANT: {
      const ids: string[] = []
      let o = 1
      while (o < f.length) {
        let id: string
        ;[id, o] = readId(f, o)
        ids.push(id)
      }
      return { type, ids }
    }
    case FrameType.RECORD:
      return { type, record: f.slice(1) }
    case FrameType.ROUND_END:
    case FrameType.WANT_END:
    case FrameType.RECORDS_END:
      if (f.length !== 1) throw violation('END frame with a body')
      return { type }
    default:
      throw violation(`unknown frame type ${String(type)}`)
  }
}

/** Bytes of the varint length prefix of a frame of n bytes. */
export function lpPrefix(n: number): number {
  let bytes = 1
  for (let v = n; v >= 0x80; v = Math.floor(v / 0x80)) bytes++
  return bytes
}

export function frameName(type: number): string {
  for (const [k, v] of Object.entries(FrameType)) if (v === type) return k
  return `0x${type.toString(16)}`
}
