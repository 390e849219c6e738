import { ed25519 } from '@noble/curves/ed25519.js'
import { describe, expect, it, vi } from 'vitest'
import { acceptableSignature, strictVerify, verifyAsync } from './ed25519'
import {
  challenge,
  craft,
  edgeVectors,
  IDENTITY_SIGNATURE,
  L,
  le,
  MESSAGE,
  signer,
  T8,
  toLe,
} from './ed25519-vectors.test-support'
import { nodeVerify } from './verify.node'

/** What every verifier a peer may use says, each behind the shared rules as the codec applies them. */
async function verdicts(signature: Uint8Array, publicKey: Uint8Array): Promise<boolean[]> {
  const acceptable = acceptableSignature(signature, publicKey)
  return [
    acceptable && strictVerify(signature, MESSAGE, publicKey),
    acceptable && nodeVerify(signature, MESSAGE, publicKey),
    await verifyAsync(signature, MESSAGE, publicKey),
  ]
}
/** @noble/curves' default: ZIP-215, cofactored. What a tab without WebCrypto Ed25519 used before. */
const zip215 = (signature: Uint8Array, publicKey: Uint8Array): boolean =>
  ed25519.verify(signature, MESSAGE, publicKey)

describe('Ed25519 rules every peer applies (PROTOCOL §3.1)', () => {
  const { a, A, secret } = signer(7)

  it('accepts an ordinary signature everywhere', async () => {
    const signature = ed25519.sign(MESSAGE, secret)
    expect(await verdicts(signature, A)).toEqual([true, true, true])
    expect(await verdicts(signature, signer(8).A)).toEqual([false, false, false])
  })

  it('rejects an R with a small-order part everywhere, which a cofactored verifier accepts', async () => {
    const signature = craft(a, A, 12345n, T8)
    expect(zip215(signature, A)).toBe(true)
    expect(await verdicts(signature, A)).toEqual([false, false, false])
  })

  it('rejects S ≥ L everywhere', async () => {
    const good = ed25519.sign(MESSAGE, secret)
    const S = le(good.subarray(32)) + L
    expect(S < 2n ** 256n).toBe(true)
    const bad = Uint8Array.from([...good.subarray(0, 32), ...toLe(S)])
    expect(acceptableSignature(bad, A)).toBe(false)
    expect(await verdicts(bad, A)).toEqual([false, false, false])
  })

  it('rejects every small-order key, whose "signatures" a cofactored verifier takes for any message', async () => {
    const small = edgeVectors().filter((v) => v.name.startsWith('small-order key'))
    expect(small).toHaveLength(8)
    for (const { signature, publicKey } of small) {
      expect(zip215(signature, publicKey)).toBe(true)
      expect(acceptableSignature(signature, publicKey)).toBe(false)
      expect(await verdicts(signature, publicKey)).toEqual([false, false, false])
    }
  })

  it('rejects a non-canonical key (y ≥ p), which ZIP-215 decodes', async () => {
    // y = p + 1 encodes the identity a second way
    const key = toLe(2n ** 255n - 19n + 1n)
    expect(zip215(IDENTITY_SIGNATURE, key)).toBe(true)
    expect(await verdicts(IDENTITY_SIGNATURE, key)).toEqual([false, false, false])
  })

  it('agrees on keys with a small-order part: accepted only when the exact equation holds', async () => {
    const mixed = edgeVectors().filter((v) => v.name.startsWith('mixed-order key'))
    expect(mixed).toHaveLength(2)
    for (const { signature, publicKey } of mixed) {
      const exact = challenge(signature.subarray(0, 32), publicKey, MESSAGE) % 8n === 0n
      expect(await verdicts(signature, publicKey)).toEqual([exact, exact, exact])
      expect(zip215(signature, publicKey)).toBe(true)
    }
  })
})

describe('verifyAsync with WebCrypto', () => {
  it('imports each author’s key once, and still checks every signature against it', async () => {
    // fresh keys: the cache is the module's, and other files in this worker verify too
    const author = () => {
      const secret = crypto.getRandomValues(new Uint8Array(32))
      return { secret, A: ed25519.getPublicKey(secret) }
    }
    const { A, secret } = author()
    const importKey = vi.spyOn(globalThis.crypto.subtle, 'importKey')
    try {
      const messages = [1, 2, 3].map((n) => new Uint8Array([n, n, n]))
      for (const message of messages) {
        expect(await verifyAsync(ed25519.sign(message, secret), message, A)).toBe(true)
      }
      // a signature of another message, under the same (cached) key
      const forged = ed25519.sign(messages[0]!, secret)
      expect(await verifyAsync(forged, messages[1]!, A)).toBe(false)
      expect(importKey).toHaveBeenCalledTimes(1)
      // another author's key is imported for them
      const other = author()
      expect(
        await verifyAsync(ed25519.sign(messages[0]!, other.secret), messages[0]!, other.A),
      ).toBe(true)
      expect(importKey).toHaveBeenCalledTimes(2)
    } finally {
      importKey.mockRestore()
    }
  })
})
