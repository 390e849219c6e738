import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js'
import { sha512 } from '@noble/hashes/sha2.js'
import { hexToBytes } from '@noble/hashes/utils.js'
import { describe, expect, it } from 'vitest'
import { acceptableSignature, strictVerify, verifyAsync } from './ed25519'
import { nodeVerify } from './verify.node'

const Point = ed25519.Point
const L = Point.Fn.ORDER
const message = new TextEncoder().encode('murmuration/record/1\n{"kind":"test"}')
/** A point of order 8: added to a key or to R, it is what cofactored and cofactorless verifiers disagree on. */
const T8 = Point.fromBytes(hexToBytes(ED25519_TORSION_SUBGROUP[1]!))

const le = (bytes: Uint8Array): bigint => bytes.reduceRight((n, b) => (n << 8n) | BigInt(b), 0n)
const toLe = (n: bigint): Uint8Array => {
  const out = new Uint8Array(32)
  for (let i = 0; i < 32; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn)
  return out
}
const challenge = (R: Uint8Array, A: Uint8Array, m: Uint8Array): bigint =>
  le(sha512.create().update(R).update(A).update(m).digest()) % L

/** A signer's secret scalar and key, so that a test can make signatures no library would. */
function signer(seed: number): { a: bigint; A: Uint8Array } {
  const { scalar, pointBytes } = ed25519.utils.getExtendedPublicKey(new Uint8Array(32).fill(seed))
  return { a: scalar, A: pointBytes }
}

/** S = r + k·a for a chosen R = [r]B + extra, and a chosen public key. */
function craft(a: bigint, A: Uint8Array, r: bigint, extra = Point.ZERO): Uint8Array {
  const R = Point.BASE.multiply(r).add(extra).toBytes()
  const S = (r + challenge(R, A, message) * a) % L
  return Uint8Array.from([...R, ...toLe(S)])
}

/** What every verifier a peer may use says, each behind the shared rules as the codec applies them. */
async function verdicts(signature: Uint8Array, publicKey: Uint8Array): Promise<boolean[]> {
  const acceptable = acceptableSignature(signature, publicKey)
  return [
    acceptable && strictVerify(signature, message, publicKey),
    acceptable && nodeVerify(signature, message, publicKey),
    await verifyAsync(signature, message, publicKey),
  ]
}
/** @noble/curves' default: ZIP-215, cofactored. What a tab without WebCrypto Ed25519 used before. */
const zip215 = (signature: Uint8Array, publicKey: Uint8Array): boolean =>
  ed25519.verify(signature, message, publicKey)

describe('Ed25519 rules every peer applies (PROTOCOL §3.1)', () => {
  const { a, A } = signer(7)

  it('accepts an ordinary signature everywhere', async () => {
    const signature = ed25519.sign(message, new Uint8Array(32).fill(7))
    expect(await verdicts(signature, A)).toEqual([true, true, true])
    expect(await verdicts(signature, signer(8).A)).toEqual([false, false, false])
  })

  it('rejects an R with a small-order part everywhere, which a cofactored verifier accepts', async () => {
    const signature = craft(a, A, 12345n, T8)
    expect(zip215(signature, A)).toBe(true)
    expect(await verdicts(signature, A)).toEqual([false, false, false])
  })

  it('rejects S ≥ L everywhere', async () => {
    const good = ed25519.sign(message, new Uint8Array(32).fill(7))
    const S = le(good.subarray(32)) + L
    expect(S < 2n ** 256n).toBe(true)
    const bad = Uint8Array.from([...good.subarray(0, 32), ...toLe(S)])
    expect(acceptableSignature(bad, A)).toBe(false)
    expect(await verdicts(bad, A)).toEqual([false, false, false])
  })

  it('rejects every small-order key, whose "signatures" a cofactored verifier takes for any message', async () => {
    const identity = Point.ZERO.toBytes()
    for (const hex of ED25519_TORSION_SUBGROUP) {
      const key = hexToBytes(hex)
      const signature = Uint8Array.from([...identity, ...new Uint8Array(32)])
      expect(zip215(signature, key)).toBe(true)
      expect(acceptableSignature(signature, key)).toBe(false)
      expect(await verdicts(signature, key)).toEqual([false, false, false])
    }
  })

  it('rejects a non-canonical key (y ≥ p), which ZIP-215 decodes', async () => {
    // y = p + 1 encodes the identity a second way
    const key = toLe(2n ** 255n - 19n + 1n)
    const signature = Uint8Array.from([...Point.ZERO.toBytes(), ...new Uint8Array(32)])
    expect(zip215(signature, key)).toBe(true)
    expect(await verdicts(signature, key)).toEqual([false, false, false])
  })

  it('agrees on keys with a small-order part: accepted only when the exact equation holds', async () => {
    const mixed = Point.fromBytes(A).add(T8).toBytes()
    const seen = new Set<string>()
    for (let r = 1n; seen.size < 2 && r < 200n; r++) {
      const signature = craft(a, mixed, r)
      const exact = challenge(signature.subarray(0, 32), mixed, message) % 8n === 0n
      const v = await verdicts(signature, mixed)
      expect(v).toEqual([exact, exact, exact])
      expect(zip215(signature, mixed)).toBe(true)
      seen.add(String(exact))
    }
    expect(seen).toEqual(new Set(['true', 'false']))
  })
})
