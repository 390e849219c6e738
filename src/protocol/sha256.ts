/**
 * SHA-256 in one call, natively where the platform has a synchronous one.
 *
 * node:crypto's takes 2.4 µs for a record of 800 bytes where the pure-JS
 * one takes 8.4, and a Node peer hashes every copy of every gossip message
 * it receives (3.4 copies of each at 32 peers) and every record's content
 * id. Browsers have no synchronous native SHA-256
 * (WebCrypto's returns a promise), so tabs use @noble/hashes. Both give the
 * same bytes; `sha256.test.ts` checks that they agree.
 */
import { sha256 as jsSha256 } from '@noble/hashes/sha2.js'
import { nodeCrypto, type NodeCrypto } from './node-crypto'

type Sha256 = (data: Uint8Array) => Uint8Array

function nativeSha256(crypto: NodeCrypto): Sha256 {
  return (data) => {
    const digest = crypto.createHash('sha256').update(data).digest()
    // a plain Uint8Array view: a Buffer's slice() would not copy, unlike the JS one's
    return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength)
  }
}

const crypto = nodeCrypto()

/** The pure-JS implementation, whatever the platform (for tests). */
export const sha256Js: Sha256 = (data) => jsSha256(data)

export const sha256: Sha256 = crypto ? nativeSha256(crypto) : sha256Js

/** Whether `sha256` is the platform's own (true on Node). */
export const nativeSha256Available = crypto !== undefined
