/**
 * Room secrets: a room is a capability. Whoever holds its secret (the invite
 * link's URL fragment) can find the room, read its records and add to them;
 * nobody else can. Pure: no I/O, no platform crypto (a friend's page at
 * http://<LAN-IP> is not a secure context and has no crypto.subtle), only
 * @noble and, for fresh randomness, crypto.getRandomValues (present in every
 * context).
 *
 * From the secret and the room's name, HKDF-SHA256 derives two things:
 * - the **room id** (since version 7, the epoch's transport id): what the
 *   relay, the topics, discovery and sync carry (records carry the stable
 *   id, stableRoomId). It names the room without revealing the
 *   secret (HKDF is one-way), so the relay learns nothing it could use to
 *   read or write.
 * - the **record key**: every record on the wire (gossip and sync) travels
 *   sealed with XChaCha20-Poly1305 under it, with a fresh random 24-byte
 *   nonce and the room id as associated data.
 *
 * Sealed envelope:
 *
 *     byte 0        0x02 (sealed format)
 *     bytes 1..24   nonce (random)
 *     bytes 25..    XChaCha20-Poly1305(recordKey, nonce, signed record, aad)
 *                   aad = "murmuration/sealed/2\n" ‖ room id
 */
import { hkdf } from '@noble/hashes/hkdf.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes as utf8 } from '@noble/hashes/utils.js'
import { fromBase64url, InvalidBase64urlError, toBase64url } from './base64url'
import { xchacha } from './xchacha'

/**
 * Secret size. 128 bits is beyond any guessing or brute force of the room id
 * (an attacker would have to try 2^127 secrets against the relay's list);
 * 22 characters of base64url keep the invite link short enough for a QR code.
 */
export const ROOM_SECRET_BYTES = 16
/** Longest secret accepted from a link (a longer one from a future version still works). */
export const MAX_ROOM_SECRET_BYTES = 64
/** Room id: 128 bits as 32 hex digits, a valid room name on the wire and in the relay. */
export const ROOM_ID_BYTES = 16
/** XChaCha20-Poly1305: 256-bit key, 192-bit nonce (random nonces never collide), 128-bit tag. */
export const RECORD_KEY_BYTES = 32
export const NONCE_BYTES = 24
export const TAG_BYTES = 16
export const SEALED_FORMAT = 0x02
/** What sealing adds to a record: format byte, nonce, tag. */
export const SEAL_OVERHEAD = 1 + NONCE_BYTES + TAG_BYTES

/** Domain separation: these derivations and this envelope belong to this protocol version only. */
const HKDF_SALT = utf8('murmuration/room/2')
const AAD_PREFIX = utf8('murmuration/sealed/2\n')

/** Room names as links carry them: lowercase letters, digits and dashes. */
export const ROOM_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/

/** A secret or a name that cannot make a room key. */
export class InvalidRoomKeyError extends Error {
  override name = 'InvalidRoomKeyError'
}

export interface RoomKey {
  /** the name people see; not secret (it is bound into the derivation, so it cannot be swapped) */
  readonly name: string
  /** the invite secret, never sent anywhere but inside an invite link's fragment */
  readonly secret: Uint8Array
  /**
   * the public id of this key's epoch (its transport id): relay, topics,
   * discovery, sync HELLO and the seal's associated data. Since version 7 the
   * records' `room` field carries the stable id (stableRoomId) instead.
   */
  readonly id: string
  /** XChaCha20-Poly1305 key of the room's records */
  readonly recordKey: Uint8Array
}

/** `n` bytes from the platform's CSPRNG (crypto.getRandomValues exists in non-secure contexts too). */
export function randomBytes(n: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(n))
}

/** A fresh room secret. */
export function newRoomSecret(random: (n: number) => Uint8Array = randomBytes): Uint8Array {
  return random(ROOM_SECRET_BYTES)
}

/** Domain separation of the stable room id (version 7). */
export const STABLE_ID_PREFIX = 'murmuration/room/7\n'

/**
 * The stable room id (since version 7): lowercase hex of the first 16 bytes
 * of SHA-256(UTF-8 `murmuration/room/7\n<name>\n<owner member id>`). It
 * names the room across epochs: the records' `room` field, bind signatures,
 * rekey boxes and the local store carry it, so a plan survives a rekey. The
 * wire (relay, topics, sync HELLO, the seal's associated data) carries the
 * epoch's transport id instead (deriveRoomKey's `id`). Throws
 * InvalidRoomKeyError on a bad name.
 */
export function stableRoomId(name: string, owner: string): string {
  if (!ROOM_NAME_PATTERN.test(name)) throw new InvalidRoomKeyError(`bad room name "${name}"`)
  return bytesToHex(sha256(utf8(`${STABLE_ID_PREFIX}${name}\n${owner}`)).subarray(0, ROOM_ID_BYTES))
}

/**
 * Derives an epoch's transport id (`id`) and record key from the room's name
 * and the epoch's secret (epoch 0: the room's first secret; epoch n+1: the
 * secret a rekey sealed to the members). Throws InvalidRoomKeyError.
 */
export function deriveRoomKey(name: string, secret: Uint8Array): RoomKey {
  if (!ROOM_NAME_PATTERN.test(name)) throw new InvalidRoomKeyError(`bad room name "${name}"`)
  if (secret.length < ROOM_SECRET_BYTES || secret.length > MAX_ROOM_SECRET_BYTES) {
    throw new InvalidRoomKeyError(`a room secret has ${ROOM_SECRET_BYTES}+ bytes`)
  }
  const id = bytesToHex(hkdf(sha256, secret, HKDF_SALT, utf8(`room-id\n${name}`), ROOM_ID_BYTES))
  const recordKey = hkdf(sha256, secret, HKDF_SALT, utf8(`record-key\n${name}`), RECORD_KEY_BYTES)
  return Object.freeze({ name, secret: secret.slice(), id, recordKey })
}

function aad(roomId: string): Uint8Array {
  const id = utf8(roomId)
  const out = new Uint8Array(AAD_PREFIX.length + id.length)
  out.set(AAD_PREFIX)
  out.set(id, AAD_PREFIX.length)
  return out
}

/** Seals one record's wire bytes for the room. */
/** What sealing and opening need of a room key: not the secret it came from. */
export type RecordKey = Pick<RoomKey, 'id' | 'recordKey'>

export function sealRecord(
  key: RecordKey,
  plain: Uint8Array,
  random: (n: number) => Uint8Array = randomBytes,
): Uint8Array {
  const nonce = random(NONCE_BYTES)
  const cipher = xchacha.seal(key.recordKey, nonce, aad(key.id), plain)
  const out = new Uint8Array(1 + NONCE_BYTES + cipher.length)
  out[0] = SEALED_FORMAT
  out.set(nonce, 1)
  out.set(cipher, 1 + NONCE_BYTES)
  return out
}

export type Opened =
  { ok: true; plain: Uint8Array } | { ok: false; reason: 'not-sealed' | 'bad-seal' }

/**
 * Opens a sealed record. Never throws: bytes from outside the room (no
 * secret, another room, tampered with, truncated) answer a rejection.
 */
export function openRecord(key: RecordKey, sealed: Uint8Array): Opened {
  if (sealed.length < SEAL_OVERHEAD || sealed[0] !== SEALED_FORMAT) {
    return { ok: false, reason: 'not-sealed' }
  }
  try {
    const nonce = sealed.subarray(1, 1 + NONCE_BYTES)
    const plain = xchacha.open(key.recordKey, nonce, aad(key.id), sealed.subarray(1 + NONCE_BYTES))
    return { ok: true, plain }
  } catch {
    return { ok: false, reason: 'bad-seal' }
  }
}

/** base64url without padding: the secret as an invite link carries it. */
export function encodeSecret(secret: Uint8Array): string {
  return toBase64url(secret)
}

/** The inverse of encodeSecret (canonical text only); throws InvalidRoomKeyError on anything else. */
export function decodeSecret(text: string): Uint8Array {
  let out: Uint8Array
  try {
    out = fromBase64url(text)
  } catch (error) {
    if (error instanceof InvalidBase64urlError)
      throw new InvalidRoomKeyError('the key is not base64url')
    throw error
  }
  if (out.length < ROOM_SECRET_BYTES || out.length > MAX_ROOM_SECRET_BYTES) {
    throw new InvalidRoomKeyError(`the key has ${out.length} bytes, want ${ROOM_SECRET_BYTES}+`)
  }
  return out
}
