/**
 * The one set of Ed25519 rules every peer applies to a record's signature
 * (docs/PROTOCOL.md §3.1). Ed25519 libraries disagree at the edges: RFC 8032
 * lets a verifier check the cofactored or the cofactorless equation and
 * leaves non-canonical encodings open, and OpenSSL (Node), BoringSSL
 * (Chromium's WebCrypto) and @noble/curves (the pure-JS fallback, ZIP-215 by
 * default) each chose differently. A member who crafts a signature on such
 * an edge would then have a record some peers keep and others drop, and the
 * plans would differ forever. So:
 *
 * - `acceptableSignature` rejects, before any library sees them, every input
 *   on which they could disagree: S ≥ L, a public key that is not a
 *   canonical encoding (y ≥ p, or x = 0 with the sign bit set), and a
 *   small-order public key;
 * - every verifier checks the cofactorless equation, encode([S]B − [k]A) = R
 *   byte for byte, as OpenSSL and BoringSSL do; `strictVerify` is that in
 *   pure JS, for where neither is at hand.
 *
 * On what is left, the equation is exact group arithmetic, so all agree.
 */
import { ed25519 } from '@noble/curves/ed25519.js'
import { sha512 } from '@noble/hashes/sha2.js'
import { remember } from './hash'

/** Checks an Ed25519 signature, synchronously; throws or returns false when it does not verify. */
export type Ed25519Verify = (
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
) => boolean

const Point = ed25519.Point
/** The order of the prime subgroup, L = 2^252 + 27742317777372353535851937790883648493. */
const L = Point.Fn.ORDER

function littleEndian(bytes: Uint8Array): bigint {
  return bytes.reduceRight((n, b) => (n << 8n) | BigInt(b), 0n)
}

/** A canonical, not small-order public key: decoded once per key (a room has tens). */
function acceptableKey(publicKey: Uint8Array): boolean {
  const hex = Array.from(publicKey, (b) => b.toString(16).padStart(2, '0')).join('')
  let ok = keyVerdicts.get(hex)
  if (ok === undefined) {
    try {
      // zip215 false: y < p and no "negative zero" x, as RFC 8032 decodes
      ok = !Point.fromBytes(publicKey, false).isSmallOrder()
    } catch {
      ok = false
    }
    remember(keyVerdicts, hex, ok)
  }
  return ok
}
const keyVerdicts = new Map<string, boolean>()

/**
 * False for any signature and key on which Ed25519 libraries may disagree
 * (see above); such a record is dropped whatever its signature says.
 */
export function acceptableSignature(signature: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false
  if (littleEndian(signature.subarray(32)) >= L) return false
  return acceptableKey(publicKey)
}

/**
 * Pure-JS Ed25519 with the cofactorless equation (about 1 ms a record on
 * this class of machine). Callers check acceptableSignature first.
 */
export const strictVerify: Ed25519Verify = (signature, message, publicKey) => {
  if (!acceptableSignature(signature, publicKey)) return false
  const R = signature.subarray(0, 32)
  const S = littleEndian(signature.subarray(32))
  const k = littleEndian(sha512.create().update(R).update(publicKey).update(message).digest()) % L
  const A = Point.fromBytes(publicKey, false)
  // public inputs only, so the faster variable-time multiplications (both take 0)
  const expected = Point.BASE.multiplyUnsafe(S).subtract(A.multiplyUnsafe(k)).toBytes()
  return equalBytes(expected, R)
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  return a.every((byte, i) => byte === b[i])
}

/** null until the first call finds out whether this platform's WebCrypto has Ed25519. */
let webCryptoEd25519: boolean | null = null

/**
 * Keys of the peers heard from, imported once: importing took two and a half
 * times as long as verifying (Chromium's trace of a run: DoImportKey 198 ms,
 * DoVerify 77 ms), and a room has tens of authors. Bounded like the Node
 * verifier's (verify.node.ts): past this many, it starts again.
 */
const MAX_CACHED_KEYS = 1_024
const importedKeys = new Map<string, Promise<CryptoKey>>()

function importedKey(subtle: SubtleCrypto, publicKey: Uint8Array): Promise<CryptoKey> {
  // 32 bytes as a string of 32 char codes: a Map key without a hex codec
  const id = String.fromCharCode(...publicKey)
  let key = importedKeys.get(id)
  if (key === undefined) {
    key = subtle.importKey('raw', copy(publicKey), { name: 'Ed25519' }, false, ['verify'])
    if (importedKeys.size >= MAX_CACHED_KEYS) importedKeys.clear()
    importedKeys.set(id, key)
    // a key this WebCrypto refused is not kept: the next call sees the same failure afresh
    key.catch(() => importedKeys.delete(id))
  }
  return key
}

/**
 * Verifies with the platform's WebCrypto Ed25519 (BoringSSL in Chromium,
 * OpenSSL in Node: cofactorless, several times faster than pure JS), or
 * with strictVerify where WebCrypto has no Ed25519. Never throws.
 */
export async function verifyAsync(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
): Promise<boolean> {
  if (!acceptableSignature(signature, publicKey)) return false
  const subtle = globalThis.crypto?.subtle
  if (webCryptoEd25519 !== false && subtle !== undefined) {
    try {
      const key = await importedKey(subtle, publicKey)
      const valid = await subtle.verify({ name: 'Ed25519' }, key, copy(signature), copy(message))
      webCryptoEd25519 = true
      return valid
    } catch {
      // no Ed25519 in this WebCrypto (an older browser): pure JS from now on
      if (webCryptoEd25519 === null) webCryptoEd25519 = false
      else return false
    }
  }
  try {
    return strictVerify(signature, message, publicKey)
  } catch {
    return false
  }
}

/** WebCrypto wants ArrayBuffer-backed views; a subarray of a larger message is copied. */
function copy(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes)
}
