/**
 * Ed25519 inputs on the edges where libraries disagree (ed25519.ts), made
 * with a known secret scalar so that they can be signatures no library
 * would produce. Shared by ed25519.test.ts (Node: OpenSSL, pure JS) and
 * e2e/ed25519.spec.ts (Chromium: BoringSSL's WebCrypto).
 */
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js'
import { sha512 } from '@noble/hashes/sha2.js'
import { hexToBytes } from '@noble/hashes/utils.js'

const Point = ed25519.Point
export const L = Point.Fn.ORDER
export const MESSAGE = new TextEncoder().encode('murmuration/record/1\n{"kind":"test"}')
/** A point of order 8: added to a key or to R, it is what cofactored and cofactorless verifiers disagree on. */
export const T8 = Point.fromBytes(hexToBytes(ED25519_TORSION_SUBGROUP[1]!))

export const le = (bytes: Uint8Array): bigint =>
  bytes.reduceRight((n, b) => (n << 8n) | BigInt(b), 0n)
export const toLe = (n: bigint): Uint8Array => {
  const out = new Uint8Array(32)
  for (let i = 0; i < 32; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn)
  return out
}
export const challenge = (R: Uint8Array, A: Uint8Array, m: Uint8Array): bigint =>
  le(sha512.create().update(R).update(A).update(m).digest()) % L

/** A signer's secret scalar and key. */
export function signer(seed: number): { a: bigint; A: Uint8Array; secret: Uint8Array } {
  const secret = new Uint8Array(32).fill(seed)
  const { scalar, pointBytes } = ed25519.utils.getExtendedPublicKey(secret)
  return { a: scalar, A: pointBytes, secret }
}

/** S = r + k·a for R = [r]B + extra, under the public key A (which may not be [a]B). */
export function craft(a: bigint, A: Uint8Array, r: bigint, extra = Point.ZERO): Uint8Array {
  const R = Point.BASE.multiply(r).add(extra).toBytes()
  const S = (r + challenge(R, A, MESSAGE) * a) % L
  return Uint8Array.from([...R, ...toLe(S)])
}

/** The identity as R and S = 0: what a small-order key "signs" for any message, to a cofactored verifier. */
export const IDENTITY_SIGNATURE = Uint8Array.from([...Point.ZERO.toBytes(), ...new Uint8Array(32)])

export interface EdgeVector {
  name: string
  signature: Uint8Array
  publicKey: Uint8Array
}

/** One of each edge, plus an ordinary signature, a wrong key and mixed-order keys both ways. */
export function edgeVectors(): EdgeVector[] {
  const { a, A, secret } = signer(7)
  const good = ed25519.sign(MESSAGE, secret)
  const mixed = Point.fromBytes(A).add(T8).toBytes()
  const out: EdgeVector[] = [
    { name: 'ordinary', signature: good, publicKey: A },
    { name: 'another key', signature: good, publicKey: signer(8).A },
    { name: 'R with a small-order part', signature: craft(a, A, 12345n, T8), publicKey: A },
    {
      name: 'S + L',
      signature: Uint8Array.from([...good.subarray(0, 32), ...toLe(le(good.subarray(32)) + L)]),
      publicKey: A,
    },
    {
      name: 'non-canonical key (y = p + 1)',
      signature: IDENTITY_SIGNATURE,
      publicKey: toLe(2n ** 255n - 19n + 1n),
    },
    ...ED25519_TORSION_SUBGROUP.map((hex, i) => ({
      name: `small-order key ${i}`,
      signature: IDENTITY_SIGNATURE,
      publicKey: hexToBytes(hex),
    })),
  ]
  // a key with a small-order part: the exact equation holds when 8 divides k, else not
  let found = 0
  for (let r = 1n; found !== 3 && r < 200n; r++) {
    const signature = craft(a, mixed, r)
    const bit = challenge(signature.subarray(0, 32), mixed, MESSAGE) % 8n === 0n ? 1 : 2
    if ((found & bit) !== 0) continue
    found |= bit
    out.push({
      name: `mixed-order key, 8 ${bit === 1 ? 'divides' : 'does not divide'} k`,
      signature,
      publicKey: mixed,
    })
  }
  return out
}
