/**
 * XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha), natively where the platform
 * has a synchronous ChaCha20-Poly1305.
 *
 * Every record on the wire is sealed with the room key (room-key.ts), so a
 * peer opens every gossip message it takes. Opening a record of 800 bytes
 * takes 50 µs with @noble/ciphers on the bench machine, 19 µs this way.
 * XChaCha is ChaCha20-Poly1305 under a subkey: HChaCha20 of the key and
 * the nonce's first 16 bytes, with four zero bytes and the nonce's last 8
 * as the 12-byte nonce. Node has no HChaCha20, so that one block comes from
 * @noble/ciphers. Browsers have no ChaCha in WebCrypto, so tabs use
 * @noble/ciphers throughout. Both give the same bytes; `xchacha.test.ts`
 * checks that they agree, and the draft's test vector.
 */
import { hchacha, xchacha20poly1305 } from '@noble/ciphers/chacha.js'
import { concatBytes } from '@noble/hashes/utils.js'
import { nodeCrypto, type NodeCrypto } from './node-crypto'

export interface Xchacha {
  seal(key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, plain: Uint8Array): Uint8Array
  /** throws on a wrong key, nonce, AAD or tag */
  open(key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, sealed: Uint8Array): Uint8Array
}

const TAG_BYTES = 16

/** node:crypto on a little-endian host (HChaCha20 below reads words in host order), else nothing. */
function nativeCrypto(): NodeCrypto | undefined {
  const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1
  return littleEndian ? nodeCrypto() : undefined
}

/** "expand 32-byte k" */
const SIGMA = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574])

/** Little-endian words of `bytes`, copied: a Buffer's slice() is a view of a shared pool. */
function words(bytes: Uint8Array): Uint32Array {
  const copy = new Uint8Array(bytes.length)
  copy.set(bytes)
  return new Uint32Array(copy.buffer)
}

/** The ChaCha20-Poly1305 key and nonce that XChaCha20-Poly1305 uses for (key, nonce). */
function subkey(key: Uint8Array, nonce: Uint8Array): { key: Uint8Array; nonce: Uint8Array } {
  const out = new Uint32Array(8)
  hchacha(SIGMA, words(key), words(nonce.subarray(0, 16)), out)
  const inner = new Uint8Array(12)
  inner.set(nonce.subarray(16, 24), 4)
  return { key: new Uint8Array(out.buffer), nonce: inner }
}

function nativeXchacha(crypto: NodeCrypto): Xchacha {
  return {
    seal(key, nonce, aad, plain) {
      const sub = subkey(key, nonce)
      const cipher = crypto.createCipheriv('chacha20-poly1305', sub.key, sub.nonce, {
        authTagLength: TAG_BYTES,
      })
      cipher.setAAD(aad, { plaintextLength: plain.length })
      return concatBytes(cipher.update(plain), cipher.final(), cipher.getAuthTag())
    },
    open(key, nonce, aad, sealed) {
      if (sealed.length < TAG_BYTES) throw new Error('sealed data shorter than its tag')
      const text = sealed.subarray(0, sealed.length - TAG_BYTES)
      const sub = subkey(key, nonce)
      const decipher = crypto.createDecipheriv('chacha20-poly1305', sub.key, sub.nonce, {
        authTagLength: TAG_BYTES,
      })
      decipher.setAAD(aad, { plaintextLength: text.length })
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES))
      // final() throws when the tag does not match
      return concatBytes(decipher.update(text), decipher.final())
    },
  }
}

/** The pure-JS implementation, whatever the platform (for tests). */
export const xchachaJs: Xchacha = {
  seal: (key, nonce, aad, plain) => xchacha20poly1305(key, nonce, aad).encrypt(plain),
  open: (key, nonce, aad, sealed) => xchacha20poly1305(key, nonce, aad).decrypt(sealed),
}

const crypto = nativeCrypto()

export const xchacha: Xchacha = crypto ? nativeXchacha(crypto) : xchachaJs

/** Whether `xchacha` is the platform's own ChaCha20-Poly1305 (true on Node). */
export const nativeXchachaAvailable = crypto !== undefined
