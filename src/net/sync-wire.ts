/**
 * Wire format of /murmuration/sync/1.0.0 (anti-entropy). Pure: no libp2p.
 *
 * Every frame is length-prefixed: an unsigned varint byte length, then that
 * many bytes, at most SYNC_MAX_FRAME_BYTES. The first byte of a frame is its
 * type; the rest is its body:
 *
 *   0x01 HELLO        u8 version (=1) | u8 roomLen | room (UTF-8)
 *                     | uvarint count of ids held | 32-byte digest
 *   0x02 IDS          ( u8 idLen | id bytes )*     ids held, hex-decoded
 *   0x03 IDS_END      (empty)
 *   0x04 WANT         ( u8 idLen | id bytes )*     ids asked for
 *   0x05 WANT_END     (empty)
 *   0x06 RECORD       the record's exact bytes
 *   0x07 RECORDS_END  (empty)
 *
 * digest = sha256 of the held ids (lowercase hex), sorted, each followed by
 * "\n". Ids are lowercase hex strings of even length; on the wire they are
 * the bytes they spell (1..SYNC_MAX_ID_BYTES).
 */
import { sha256 } from '@noble/hashes/sha2.js'
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

export const SYNC_VERSION = 1
export const DIGEST_BYTES = 32

export const FrameType = {
  HELLO: 0x01,
  IDS: 0x02,
  IDS_END: 0x03,
  WANT: 0x04,
  WANT_END: 0x05,
  RECORD: 0x06,
  RECORDS_END: 0x07,
} as const
export type FrameTypeCode = (typeof FrameType)[keyof typeof FrameType]

export interface Hello {
  version: number
  room: string
  count: number
  digest: Uint8Array
}

export type Frame =
  | { type: typeof FrameType.HELLO; hello: Hello }
  | { type: typeof FrameType.IDS | typeof FrameType.WANT; ids: string[] }
  | { type: typeof FrameType.RECORD; record: Uint8Array }
  | {
      type: typeof FrameType.IDS_END | typeof FrameType.WANT_END | typeof FrameType.RECORDS_END
    }

/** digest of a set of ids: sha256("id1\nid2\n…") over the sorted ids. */
export function digestIds(ids: readonly string[]): Uint8Array {
  const sorted = [...ids].sort()
  return sha256(utf8(sorted.map((id) => id + '\n').join('')))
}

export function encodeHello(h: Omit<Hello, 'version'>): Uint8Array {
  const room = utf8(checkRoom(h.room))
  if (h.digest.length !== DIGEST_BYTES) throw new RangeError('digest must be 32 bytes')
  return concat([
    Uint8Array.of(FrameType.HELLO, SYNC_VERSION, room.length),
    room,
    encodeUvarint(h.count),
    h.digest,
  ])
}

/** Whether an id can travel in IDS/WANT frames. */
export function isWireId(id: string): boolean {
  const b = hexToBytes(id)
  return b !== undefined && b.length <= SYNC_MAX_ID_BYTES
}

/** IDS or WANT frames carrying `ids` (which must all pass isWireId), `perFrame` per frame. */
export function encodeIdFrames(
  type: typeof FrameType.IDS | typeof FrameType.WANT,
  ids: readonly string[],
  perFrame: number,
): Uint8Array[] {
  const frames: Uint8Array[] = []
  for (let i = 0; i < ids.length; i += perFrame) {
    const parts: Uint8Array[] = [Uint8Array.of(type)]
    for (const id of ids.slice(i, i + perFrame)) {
      const b = hexToBytes(id)
      if (b === undefined || b.length > SYNC_MAX_ID_BYTES) throw new RangeError(`bad id ${id}`)
      parts.push(Uint8Array.of(b.length), b)
    }
    frames.push(concat(parts))
  }
  return frames
}

export function encodeRecord(record: Uint8Array): Uint8Array {
  return concat([Uint8Array.of(FrameType.RECORD), record])
}

export function encodeEnd(
  type: typeof FrameType.IDS_END | typeof FrameType.WANT_END | typeof FrameType.RECORDS_END,
): Uint8Array {
  return Uint8Array.of(type)
}

/** Decodes one frame (without its length prefix). Throws ProtocolViolationError. */
export function decodeFrame(f: Uint8Array): Frame {
  const type = f[0]
  switch (type) {
    case FrameType.HELLO: {
      const version = f[1]
      const roomLen = f[2]
      if (version === undefined || roomLen === undefined) {
        throw new ProtocolViolationError('truncated HELLO')
      }
      if (3 + roomLen > f.length) throw new ProtocolViolationError('truncated HELLO room')
      let room: string
      try {
        room = checkRoom(fromUtf8(f.subarray(3, 3 + roomLen)))
      } catch (err) {
        throw new ProtocolViolationError(`bad HELLO room: ${(err as Error).message}`)
      }
      const [count, next] = decodeUvarint(f, 3 + roomLen)
      if (f.length !== next + DIGEST_BYTES) throw new ProtocolViolationError('bad HELLO length')
      return { type, hello: { version, room, count, digest: f.slice(next) } }
    }
    case FrameType.IDS:
    case FrameType.WANT: {
      const ids: string[] = []
      let o = 1
      while (o < f.length) {
        const len = f[o] as number
        if (len === 0 || len > SYNC_MAX_ID_BYTES) throw new ProtocolViolationError('bad id length')
        if (o + 1 + len > f.length) throw new ProtocolViolationError('truncated id')
        ids.push(bytesToHex(f.subarray(o + 1, o + 1 + len)))
        o += 1 + len
      }
      return { type, ids }
    }
    case FrameType.RECORD:
      return { type, record: f.slice(1) }
    case FrameType.IDS_END:
    case FrameType.WANT_END:
    case FrameType.RECORDS_END:
      if (f.length !== 1) throw new ProtocolViolationError('END frame with a body')
      return { type }
    default:
      throw new ProtocolViolationError(`unknown frame type ${String(type)}`)
  }
}

export function frameName(type: number): string {
  for (const [k, v] of Object.entries(FrameType)) if (v === type) return k
  return `0x${type.toString(16)}`
}
