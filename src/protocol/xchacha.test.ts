import { describe, expect, it } from 'vitest'
import { hexToBytes, bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { nativeXchachaAvailable, xchacha, xchachaJs } from './xchacha'

const bytes = (size: number, seed: number) =>
  Uint8Array.from({ length: size }, (_, i) => (i * 31 + seed * 7 + size) & 0xff)

describe('xchacha', () => {
  it('is node:crypto on Node, and gives the same bytes as the pure-JS one', () => {
    expect(nativeXchachaAvailable).toBe(true)
    for (const size of [0, 1, 63, 64, 65, 800, 70_000]) {
      const [key, nonce, aad, plain] = [bytes(32, 1), bytes(24, size), bytes(20, 3), bytes(size, 4)]
      const sealed = xchacha.seal(key, nonce, aad, plain)
      expect(bytesToHex(sealed)).toBe(bytesToHex(xchachaJs.seal(key, nonce, aad, plain)))
      expect(bytesToHex(xchacha.open(key, nonce, aad, sealed))).toBe(bytesToHex(plain))
    }
  })

  it('takes Buffers, whose slice() does not copy, as the network hands them over', () => {
    const [key, nonce, aad, plain] = [bytes(32, 1), bytes(24, 2), bytes(20, 3), bytes(100, 4)]
    const sealed = xchachaJs.seal(key, nonce, aad, plain)
    // small Buffers share one pooled ArrayBuffer; a frame holds the nonce at an offset
    const frame = Buffer.concat([Buffer.from([0]), Buffer.from(nonce), Buffer.from(sealed)])
    const inFrame = frame.subarray(1, 25)
    expect(bytesToHex(xchacha.open(Buffer.from(key), inFrame, aad, frame.subarray(25)))).toBe(
      bytesToHex(plain),
    )
    expect(bytesToHex(xchacha.seal(key, inFrame, aad, plain))).toBe(bytesToHex(sealed))
  })

  it('matches the test vector of draft-irtf-cfrg-xchacha (A.3.1)', () => {
    const plain = utf8ToBytes(
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.",
    )
    const aad = hexToBytes('50515253c0c1c2c3c4c5c6c7')
    const key = hexToBytes('808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f')
    const nonce = hexToBytes('404142434445464748494a4b4c4d4e4f5051525354555657')
    const sealed = xchacha.seal(key, nonce, aad, plain)
    expect(bytesToHex(sealed)).toBe(
      'bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb' +
        '731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452' +
        '2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9' +
        '21f9664c97637da9768812f615c68b13b52e' +
        'c0875924c1c7987947deafd8780acf49',
    )
  })

  it('refuses what was not sealed with this key, nonce and AAD, or was changed', () => {
    const [key, nonce, aad, plain] = [bytes(32, 1), bytes(24, 2), bytes(20, 3), bytes(100, 4)]
    const sealed = xchacha.seal(key, nonce, aad, plain)
    const flip = (data: Uint8Array, at: number) => {
      const copy = data.slice()
      copy[at] = copy[at]! ^ 1
      return copy
    }
    expect(() => xchacha.open(flip(key, 0), nonce, aad, sealed)).toThrow()
    expect(() => xchacha.open(key, flip(nonce, 23), aad, sealed)).toThrow()
    expect(() => xchacha.open(key, flip(nonce, 0), aad, sealed)).toThrow()
    expect(() => xchacha.open(key, nonce, flip(aad, 0), sealed)).toThrow()
    expect(() => xchacha.open(key, nonce, aad, flip(sealed, 5))).toThrow()
    expect(() => xchacha.open(key, nonce, aad, flip(sealed, sealed.length - 1))).toThrow()
    expect(() => xchacha.open(key, nonce, aad, sealed.subarray(0, 10))).toThrow()
  })
})
