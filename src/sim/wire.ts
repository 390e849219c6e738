/**
 * The real wire for simulated peers (SwarmOptions.codec): each peer has an
 * Ed25519 key, every record it publishes is encoded and signed exactly as
 * codec.ts does it, and every receiver gets what decodeRecord makes of the
 * bytes (schema, canonical form, ids, room, sender, signature), not the
 * sender's object. Synchronous, with node:crypto, since the simulator is.
 *
 * A record's bytes are decoded once and the verdict shared by all its
 * receivers: decoding is a pure function of the bytes, so this is what
 * every receiver would conclude, at a tenth of the cost.
 */
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto'
import { publicKeyFromRaw } from '@libp2p/crypto/keys'
import { peerIdFromPublicKey } from '@libp2p/peer-id'
import { canonicalJson } from '../protocol/canonical'
import { decodeRecord, SIGNING_PREFIX, WIRE_FORMAT, WIRE_HEADER_BYTES } from '../protocol/codec'
import type { WireRecord } from '../protocol/records'
import { nodeVerify } from '../protocol/verify.node.js'
import type { Rng } from './rng'

/** DER PKCS#8 header of an Ed25519 private key (RFC 8410); the 32-byte seed follows. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

export interface SimKey {
  peerId: string
  key: KeyObject
}

/** A deterministic Ed25519 key (and its PeerId) from the simulator's random stream. */
export function simKey(rng: Rng): SimKey {
  const seed = Buffer.alloc(32)
  for (let i = 0; i < 32; i++) seed[i] = rng.int(0, 255)
  const key = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  })
  const jwk = createPublicKey(key).export({ format: 'jwk' })
  const raw = Buffer.from(jwk.x!, 'base64url')
  return { peerId: peerIdFromPublicKey(publicKeyFromRaw(raw)).toString(), key }
}

export class SimWire {
  private readonly bytesById = new Map<string, Uint8Array>()
  private readonly decoded = new WeakMap<Uint8Array, WireRecord | null>()
  rejected = 0

  constructor(
    private readonly keys: ReadonlyMap<string, KeyObject>,
    private readonly room: string,
  ) {}

  /** The record's wire bytes, signed by its author (codec.ts's format). */
  encode(record: WireRecord): Uint8Array {
    const known = this.bytesById.get(record.id)
    if (known) return known
    const key = this.keys.get(record.from)
    if (!key) throw new Error(`no key for ${record.from}`)
    const body = new TextEncoder().encode(canonicalJson(record))
    const signature = sign(null, Buffer.concat([SIGNING_PREFIX, body]), key)
    const bytes = new Uint8Array(WIRE_HEADER_BYTES + body.length)
    bytes[0] = WIRE_FORMAT
    bytes.set(signature, 1)
    bytes.set(body, WIRE_HEADER_BYTES)
    // presence beats are never re-sent: keep only plan records, which sync sends again
    if (record.kind !== 'presence') this.bytesById.set(record.id, bytes)
    return bytes
  }

  /** What a receiver makes of the bytes sent by `sender`: a record, or null (dropped). */
  decode(bytes: Uint8Array, sender: string): WireRecord | null {
    let record = this.decoded.get(bytes)
    if (record === undefined) {
      const result = decodeRecord(bytes, { room: this.room, sender, verify: nodeVerify })
      record = result.ok ? result.record : null
      if (!result.ok) this.rejected++
      this.decoded.set(bytes, record)
    }
    return record
  }

  /** A record as it travels: encoded by its author, decoded by the receiver. */
  carry<R extends WireRecord>(record: R): R | null {
    return this.decode(this.encode(record), record.from) as R | null
  }
}
