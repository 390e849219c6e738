/** Small byte helpers for the wire formats of src/net. Pure, no platform code. */
import { ProtocolViolationError } from './errors'

const textEncoder = new TextEncoder()
const textDecoder = new TextDecoder('utf-8', { fatal: true })

export function utf8(s: string): Uint8Array {
  return textEncoder.encode(s)
}

/** Strict UTF-8 decode: invalid input is a protocol violation. */
export function fromUtf8(b: Uint8Array): string {
  try {
    return textDecoder.decode(b)
  } catch {
    throw new ProtocolViolationError('invalid UTF-8')
  }
}

/** Unsigned LEB128 varint, for integers below 2^53. */
export function encodeUvarint(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a uvarint: ${n}`)
  const out: number[] = []
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80)
    n = Math.floor(n / 0x80)
  }
  out.push(n)
  return Uint8Array.from(out)
}

/** Decodes a uvarint at `offset`; returns the value and the offset after it. */
export function decodeUvarint(b: Uint8Array, offset: number): [value: number, next: number] {
  let value = 0
  let scale = 1
  for (let i = offset; i < b.length && i < offset + 8; i++) {
    const byte = b[i] as number
    value += (byte & 0x7f) * scale
    if ((byte & 0x80) === 0) return [value, i + 1]
    scale *= 0x80
  }
  throw new ProtocolViolationError('truncated or oversized varint')
}

const HEX_RE = /^(?:[0-9a-f]{2})+$/
/**
 * Two hex digits by byte value, and each hex digit's value by char code:
 * ids go to bytes and back a hundred thousand times in a late join (sync's
 * WANT and have lists), and a table beats parseInt and toString per byte.
 */
const HEX_PAIRS = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'))
const HEX_DIGIT = new Uint8Array(128)
for (let d = 0; d < 16; d++) HEX_DIGIT['0123456789abcdef'.charCodeAt(d)] = d

/** Lowercase hex of even length → bytes; undefined when `hex` is not that. */
export function hexToBytes(hex: string): Uint8Array | undefined {
  if (!HEX_RE.test(hex)) return undefined
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) {
    out[i] =
      ((HEX_DIGIT[hex.charCodeAt(2 * i)] as number) << 4) |
      (HEX_DIGIT[hex.charCodeAt(2 * i + 1)] as number)
  }
  return out
}

export function bytesToHex(b: Uint8Array): string {
  let s = ''
  for (let i = 0; i < b.length; i++) s += HEX_PAIRS[b[i] as number] as string
  return s
}

export function concat(parts: Uint8Array[]): Uint8Array {
  let len = 0
  for (const p of parts) len += p.length
  const out = new Uint8Array(len)
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
