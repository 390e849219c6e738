/**
 * Bytes ⇄ records. `decodeRecord` is the one door through which network
 * bytes become domain objects: it never throws, and answers either a typed
 * record or a typed rejection with its reason.
 *
 * Wire format of one record:
 *
 *     byte 0        format version, 0x01
 *     bytes 1..64   Ed25519 signature by `from` over SIGNING_PREFIX ‖ body
 *     bytes 65..    body: the record as canonical JSON, UTF-8
 */
import { peerIdFromString } from '@libp2p/peer-id'
import { canonicalJson } from './canonical'
import { acceptableSignature, strictVerify, verifyAsync, type Ed25519Verify } from './ed25519'
import { remember } from './hash'
import { MAX_RECORD_BYTES } from './limits'
import type { WireRecord } from './records'
import { validateRecord } from './validate'

export const WIRE_FORMAT = 0x01
export const SIGNATURE_BYTES = 64
/** Domain separation: a record signature can never be mistaken for a signature of anything else. */
export const SIGNING_PREFIX = new TextEncoder().encode('murmuration/record/1\n')
const HEADER_BYTES = 1 + SIGNATURE_BYTES
/** Format byte and signature, before the body. */
export const WIRE_HEADER_BYTES = HEADER_BYTES
/** The largest record on the wire: header and the largest body. */
export const MAX_WIRE_BYTES = HEADER_BYTES + MAX_RECORD_BYTES

export interface Signer {
  /** this peer's PeerId, the `from` of everything it signs */
  readonly peerId: string
  sign(data: Uint8Array): Uint8Array | Promise<Uint8Array>
}

export type RejectReason =
  | 'too-short'
  | 'too-large'
  | 'bad-format'
  | 'not-utf8'
  | 'not-json'
  | 'schema'
  | 'not-canonical'
  | 'bad-id'
  | 'wrong-room'
  | 'wrong-sender'
  | 'bad-signature'

export type Rejection = { ok: false; reason: RejectReason; detail: string }
export type Decoded = { ok: true; record: WireRecord; body: Uint8Array } | Rejection

export type { Ed25519Verify } from './ed25519'

export interface DecodeContext {
  /** the room this peer is in: a record from another room is rejected */
  room?: string
  /** the transport-level sender (GossipSub's signed `from`): must equal the record's `from` */
  sender?: string
  /**
   * decodeRecord's signature check; default strictVerify, pure JS (Node peers
   * pass native crypto). Any verifier must be cofactorless (ed25519.ts); the
   * inputs on which verifiers could disagree are rejected before it runs.
   */
  verify?: Ed25519Verify
}

function signedPayload(body: Uint8Array): Uint8Array {
  const payload = new Uint8Array(SIGNING_PREFIX.length + body.length)
  payload.set(SIGNING_PREFIX)
  payload.set(body, SIGNING_PREFIX.length)
  return payload
}

export async function encodeRecord(record: WireRecord, signer: Signer): Promise<Uint8Array> {
  if (record.from !== signer.peerId) throw new Error('a peer signs only its own records')
  const body = new TextEncoder().encode(canonicalJson(record))
  const signature = await signer.sign(signedPayload(body))
  const bytes = new Uint8Array(HEADER_BYTES + body.length)
  bytes[0] = WIRE_FORMAT
  bytes.set(signature, 1)
  bytes.set(body, HEADER_BYTES)
  return bytes
}

// ignoreBOM: a leading byte-order mark is kept (and then fails JSON.parse), not
// silently stripped: a body is its canonical encoding, byte for byte (PROTOCOL
// §4), so the same record never travels in two forms that some peers reject
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

function reject(reason: RejectReason, detail: string): Rejection {
  return { ok: false, reason, detail }
}

type Checked = {
  ok: true
  record: WireRecord
  body: Uint8Array
  signature: Uint8Array
  publicKey: Uint8Array
}

/** Every check but the signature's. */
function check(bytes: Uint8Array, context: DecodeContext): Checked | Rejection {
  try {
    if (bytes.length < HEADER_BYTES + 2) return reject('too-short', `${bytes.length} bytes`)
    if (bytes.length > HEADER_BYTES + MAX_RECORD_BYTES)
      return reject('too-large', `${bytes.length} bytes`)
    if (bytes[0] !== WIRE_FORMAT) return reject('bad-format', `format byte ${bytes[0]}`)
    const body = bytes.subarray(HEADER_BYTES)
    let text: string
    try {
      text = utf8.decode(body)
    } catch {
      return reject('not-utf8', 'body is not UTF-8')
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      return reject('not-json', 'body is not JSON')
    }
    // one canonical encoding per record: validateRecord compares it with the text
    const valid = validateRecord(json, context, text)
    if (!valid.ok) return reject(valid.reason, valid.detail)
    const record = valid.record
    const publicKey = authorKey(record.from)
    if (publicKey === null) return reject('bad-signature', 'PeerId carries no Ed25519 key')
    const signature = bytes.slice(1, HEADER_BYTES)
    if (!acceptableSignature(signature, publicKey))
      return reject('bad-signature', 'non-canonical signature or key (PROTOCOL §3.1)')
    return { ok: true, record, body: new Uint8Array(body), signature, publicKey }
  } catch (err) {
    // nothing from the network may throw past this module
    return reject('schema', `unexpected: ${(err as Error).message}`)
  }
}

/**
 * The raw Ed25519 key a PeerId names (null if it names none). A room has tens
 * of authors and every record names one, so the base58 decode is done once
 * per author, not once per record.
 */
function authorKey(from: string): Uint8Array | null {
  let key = authorKeys.get(from)
  if (key === undefined) {
    const publicKey = peerIdFromString(from).publicKey
    key = publicKey?.type === 'Ed25519' ? publicKey.raw : null
    remember(authorKeys, from, key)
  }
  return key
}
const authorKeys = new Map<string, Uint8Array | null>()

function verified(checked: Checked, valid: boolean): Decoded {
  if (!valid) return reject('bad-signature', `signature does not verify for ${checked.record.from}`)
  return { ok: true, record: checked.record, body: checked.body }
}

/**
 * The author (`from`) a record's bytes name, read without any check: no
 * schema, no signature. Only for attributing a message to the link it came
 * over (rate limits); undefined for anything that names nobody. Never throws.
 */
export function namedAuthor(bytes: Uint8Array): string | undefined {
  try {
    const json = JSON.parse(utf8.decode(bytes.subarray(HEADER_BYTES))) as { from?: unknown } | null
    return typeof json?.from === 'string' ? json.from : undefined
  } catch {
    return undefined
  }
}

/** Synchronous decode (pure-JS Ed25519 unless told otherwise): usable as a GossipSub topic validator. */
export function decodeRecord(bytes: Uint8Array, context: DecodeContext = {}): Decoded {
  const checked = check(bytes, context)
  if (!checked.ok) return checked
  const verify = context.verify ?? strictVerify
  try {
    return verified(
      checked,
      verify(checked.signature, signedPayload(checked.body), checked.publicKey),
    )
  } catch {
    return reject('bad-signature', 'malformed signature')
  }
}

/**
 * Asynchronous decode, same checks: verifies with the platform's crypto
 * (WebCrypto or node:crypto), several times faster than pure JS, for bulk
 * input such as an anti-entropy sync.
 */
export async function decodeRecordAsync(
  bytes: Uint8Array,
  context: DecodeContext = {},
): Promise<Decoded> {
  const checked = check(bytes, context)
  if (!checked.ok) return checked
  try {
    const payload = signedPayload(checked.body)
    return verified(checked, await verifyAsync(checked.signature, payload, checked.publicKey))
  } catch {
    return reject('bad-signature', 'malformed signature')
  }
}
