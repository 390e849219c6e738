/**
 * The members vectors (docs/test-vectors.json `members`), recomputed the way
 * a peer written elsewhere would: node:crypto's HKDF, SHA-256, Ed25519 and
 * X25519, and @noble/ciphers' XChaCha20-Poly1305, from the document's
 * formulas (PROTOCOL.md §0.1), not through src/protocol's member-key.ts.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  hkdfSync,
  verify,
} from 'node:crypto'
import { readFileSync } from 'node:fs'
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js'
import { describe, expect, it } from 'vitest'
import { decodeRecord } from '../../src/protocol/codec'
import type { generateVectors } from './generate'

const vectors = JSON.parse(
  readFileSync(new URL('../../docs/test-vectors.json', import.meta.url), 'utf8'),
) as ReturnType<typeof generateVectors>
const m = vectors.members

const hkdf = (ikm: Buffer, salt: string, info: string, length = 32) =>
  Buffer.from(hkdfSync('sha256', ikm, Buffer.from(salt), Buffer.from(info), length))
const ED_PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex')
const X_PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex')
const ED_SPKI = Buffer.from('302a300506032b6570032100', 'hex')
const X_SPKI = Buffer.from('302a300506032b656e032100', 'hex')
const privateKey = (prefix: Buffer, raw: Buffer) =>
  createPrivateKey({ key: Buffer.concat([prefix, raw]), format: 'der', type: 'pkcs8' })
const publicRaw = (key: ReturnType<typeof createPrivateKey>) =>
  Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x!, 'base64url')
const edPublic = (raw: Buffer) =>
  createPublicKey({ key: Buffer.concat([ED_SPKI, raw]), format: 'der', type: 'spki' })

/** A member's keys from its seed, by the formulas of §0.1. */
function member(seedHex: string) {
  const seed = Buffer.from(seedHex, 'hex')
  const signingKey = hkdf(seed, 'murmuration/member/1', 'sign')
  const boxPrivate = hkdf(seed, 'murmuration/member/1', 'box')
  return {
    signingKey,
    boxPrivate,
    id: publicRaw(privateKey(ED_PKCS8, signingKey)).toString('base64url'),
    box: publicRaw(privateKey(X_PKCS8, boxPrivate)).toString('base64url'),
  }
}

describe('members vectors (§0.1), recomputed with node:crypto', () => {
  it('a member key from its seed, and the invite’s `me` is the seed in base64url', () => {
    const key = member(m.memberKey.seed)
    expect(key.signingKey.toString('hex')).toBe(m.memberKey.signingKey)
    expect(key.boxPrivate.toString('hex')).toBe(m.memberKey.boxPrivate)
    expect(key.id).toBe(m.memberKey.memberId)
    expect(key.box).toBe(m.memberKey.box)
    expect(Buffer.from(m.memberKey.seed, 'hex').toString('base64url')).toBe(m.memberKey.me)
  })

  it('the stable room id: first 16 bytes of SHA-256 of the UTF-8 input, hex', () => {
    const s = m.stableId
    expect(s.input).toBe(`murmuration/room/7\n${s.name}\n${s.owner}`)
    expect(createHash('sha256').update(s.input).digest().subarray(0, 16).toString('hex')).toBe(s.id)
  })

  it('a bind: the member key’s signature over murmuration/bind/1, room, PeerId; signed record', () => {
    const b = m.bind
    expect(b.message).toBe(`murmuration/bind/1\n${m.stableId.id}\n${vectors.key.peerId}`)
    const memberKey = edPublic(Buffer.from(b.record.member, 'base64url'))
    expect(
      verify(null, Buffer.from(b.message), memberKey, Buffer.from(b.record.sig, 'base64url')),
    ).toBe(true)
    expect(b.record.member).toBe(m.memberKey.memberId)
    const decoded = decodeRecord(Buffer.from(b.wire, 'hex'), { room: m.stableId.id })
    expect(decoded.ok && decoded.record).toEqual(b.record)
  })

  it('an admit: the guest’s member id and box key, signed by the owner’s PeerId', () => {
    const guest = member(m.admit.guestSeed)
    expect(m.admit.record).toMatchObject({ member: guest.id, box: guest.box, coOwner: false })
    const decoded = decodeRecord(Buffer.from(m.admit.wire, 'hex'), { room: m.stableId.id })
    expect(decoded.ok && decoded.record).toEqual(m.admit.record)
  })

  it('a rekey: the guest opens its box with its own key, X25519 and HKDF as documented', () => {
    const r = m.rekey
    const guest = member(m.admit.guestSeed)
    const eph = privateKey(X_PKCS8, Buffer.from(r.ephPrivate, 'hex'))
    expect(publicRaw(eph).toString('base64url')).toBe(r.record.eph)
    const ephPublic = createPublicKey({
      key: Buffer.concat([X_SPKI, Buffer.from(r.record.eph, 'base64url')]),
      format: 'der',
      type: 'spki',
    })
    // the guest's side: its box private key and the rekey's eph
    const shared = diffieHellman({
      privateKey: privateKey(X_PKCS8, guest.boxPrivate),
      publicKey: ephPublic,
    })
    expect(shared.toString('hex')).toBe(r.shared)
    const info = `${m.stableId.id}\n${r.record.epoch}\n${guest.id}`
    expect(r.boxKeyInfo).toBe(info)
    const boxKey = hkdf(shared, 'murmuration/rekey/1', info)
    expect(boxKey.toString('hex')).toBe(r.boxKey)
    const box = r.record.boxes.find((b) => b.member === guest.id)!
    const secret = xchacha20poly1305(
      boxKey,
      Buffer.from(box.nonce, 'base64url'),
      new Uint8Array(0),
    ).decrypt(Buffer.from(box.sealed, 'base64url'))
    expect(Buffer.from(secret).toString('hex')).toBe(r.epochSecret)
    // the removed member has no box and its key opens none
    const removed = member(r.removedSeed)
    expect(r.record.removed).toEqual([removed.id])
    expect(r.record.boxes.map((b) => b.member)).not.toContain(removed.id)
    // the new epoch's transport id, as §0 derives a room id from a secret
    const transport = hkdf(
      Buffer.from(secret),
      'murmuration/room/2',
      `room-id\n${m.stableId.name}`,
      16,
    )
    expect(transport.toString('hex')).toBe(r.epoch1TransportId)
    const decoded = decodeRecord(Buffer.from(r.wire, 'hex'), { room: m.stableId.id })
    expect(decoded.ok && decoded.record).toEqual(r.record)
  })

  it('a version-7 invite link: room, key (epoch secret), owner, me in the fragment', () => {
    const url = new URL(m.invite.link)
    expect(url.search).toBe('?role=executor')
    const params = new URLSearchParams(url.hash.slice(1))
    expect([...params.keys()]).toEqual(['room', 'key', 'owner', 'me'])
    expect(params.get('room')).toBe(vectors.room.name)
    expect(params.get('key')).toBe(vectors.room.inviteKey)
    expect(params.get('owner')).toBe(m.memberKey.memberId)
    expect(params.get('me')).toBe(Buffer.from(m.admit.guestSeed, 'hex').toString('base64url'))
  })
})
