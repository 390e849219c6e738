/**
 * base64url without padding (RFC 4648 §5), strict: the one text form of the
 * keys, signatures and boxes in member records and invite links. Decoding
 * accepts only the canonical encoding of the length asked for (the unused
 * low bits of the last character must be zero), so one value has exactly
 * one text form and a record's canonical bytes cannot be varied by
 * re-encoding a key.
 */

export class InvalidBase64urlError extends Error {
  override name = 'InvalidBase64urlError'
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const VALUE = new Map([...ALPHABET].map((char, index) => [char, index]))

/** Characters that encode `bytes` bytes without padding. */
export function base64urlLength(bytes: number): number {
  return Math.ceil((bytes * 8) / 6)
}

export function toBase64url(bytes: Uint8Array): string {
  let out = ''
  let bits = 0
  let value = 0
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 6) {
      bits -= 6
      out += ALPHABET[(value >> bits) & 63]
    }
    value &= (1 << bits) - 1
  }
  if (bits > 0) out += ALPHABET[(value << (6 - bits)) & 63]
  return out
}

/**
 * The bytes of a canonical base64url text; `length`, when given, is the
 * number of bytes it must decode to. Throws InvalidBase64urlError otherwise.
 */
export function fromBase64url(text: string, length?: number): Uint8Array {
  const bytes = Math.floor((text.length * 6) / 8)
  if (text.length % 4 === 1 || (length !== undefined && bytes !== length)) {
    throw new InvalidBase64urlError(`want ${length ?? 'whole'} bytes, got ${text.length} chars`)
  }
  const out = new Uint8Array(bytes)
  let bits = 0
  let value = 0
  let at = 0
  for (const char of text) {
    const six = VALUE.get(char)
    if (six === undefined) throw new InvalidBase64urlError('not base64url')
    value = (value << 6) | six
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[at++] = (value >> bits) & 255
    }
    value &= (1 << bits) - 1
  }
  if (value !== 0) throw new InvalidBase64urlError('not the canonical encoding (low bits set)')
  return out
}

/** A regular expression source matching exactly the canonical texts of `bytes` bytes. */
export function base64urlPattern(bytes: number): string {
  const chars = base64urlLength(bytes)
  const spare = chars * 6 - bytes * 8
  // the last character carries 6 - spare bits of data and `spare` zero bits
  const last = [...ALPHABET].filter((_, v) => v % (1 << spare) === 0).join('')
  const body = `[A-Za-z0-9_-]{${chars - 1}}`
  return spare === 0 ? `^[A-Za-z0-9_-]{${chars}}$` : `^${body}[${escape(last)}]$`
}

function escape(chars: string): string {
  return chars.replace(/-/g, '\\-')
}
