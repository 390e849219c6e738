import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  base64urlLength,
  base64urlPattern,
  fromBase64url,
  InvalidBase64urlError,
  toBase64url,
} from './base64url'

describe('canonical base64url', () => {
  it('encodes as RFC 4648 §5 without padding (Node’s base64url) and decodes back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        const text = toBase64url(bytes)
        expect(text).toBe(Buffer.from(bytes).toString('base64url'))
        expect(text).toHaveLength(base64urlLength(bytes.length))
        expect(fromBase64url(text, bytes.length)).toEqual(bytes)
        expect(new RegExp(base64urlPattern(bytes.length)).test(text)).toBe(true)
      }),
    )
  })

  it('refuses a second spelling, a wrong length and foreign characters', () => {
    const text = toBase64url(new Uint8Array(32).fill(7))
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const twin = text.slice(0, -1) + alphabet[alphabet.indexOf(text.at(-1)!) + 1]!
    // Node decodes the twin to the same bytes: exactly the ambiguity refused here
    expect(Buffer.from(twin, 'base64url')).toEqual(Buffer.from(text, 'base64url'))
    expect(() => fromBase64url(twin, 32)).toThrow(InvalidBase64urlError)
    expect(new RegExp(base64urlPattern(32)).test(twin)).toBe(false)
    expect(() => fromBase64url(text, 31)).toThrow(InvalidBase64urlError)
    expect(() => fromBase64url(`${text.slice(0, -1)}=`, 32)).toThrow(InvalidBase64urlError)
    expect(() => fromBase64url('A')).toThrow(InvalidBase64urlError)
  })
})
