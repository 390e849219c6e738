import { describe, expect, it } from 'vitest'
import { nativeSha256Available, sha256, sha256Js } from './sha256'

describe('sha256', () => {
  it('is node:crypto on Node, and gives the same bytes as the pure-JS one', () => {
    expect(nativeSha256Available).toBe(true)
    for (const size of [0, 1, 55, 56, 64, 800, 70_000]) {
      const data = Uint8Array.from({ length: size }, (_, i) => (i * 31 + size) & 0xff)
      const native = sha256(data)
      expect(native).toBeInstanceOf(Uint8Array)
      expect(native.length).toBe(32)
      expect([...native]).toEqual([...sha256Js(data)])
    }
  })

  it('returns a plain Uint8Array whose slice() copies', () => {
    const digest = sha256(new Uint8Array([1, 2, 3]))
    const copy = digest.slice(0, 4)
    copy[0] = copy[0]! ^ 0xff
    expect(copy[0]).not.toBe(digest[0])
  })
})
