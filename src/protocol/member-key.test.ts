import { ed25519, x25519 } from '@noble/curves/ed25519.js'
import { hkdf } from '@noble/hashes/hkdf.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { describe, expect, it } from 'vitest'
import { base64urlPattern, fromBase64url, toBase64url } from './base64url'
import {
  bindMessage,
  deriveMemberKey,
  InvalidMemberKeyError,
  memberPublicKey,
  openEpochSecret,
  sealEpochSecret,
  signBind,
  verifyBind,
} from './member-key'
import { deriveRoomKey, stableRoomId } from './room-key'

const seed = Uint8Array.from({ length: 16 }, (_, i) => i)
const me = deriveMemberKey(seed)
const room = stableRoomId('trip', me.id)
const peer = '12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA'
const other = '12D3KooWHFrmLWTTDD4NodngtRMEVYgxrsDMp4F9jeUZ8g7UYgLk'

/** A deterministic "random" source for seals: counts up from `start`. */
function counter(start: number) {
  let next = start
  return (n: number) => Uint8Array.from({ length: n }, () => next++ & 255)
}

describe('member key', () => {
  it('derives the documented keys from a seed (HKDF-SHA256, salt murmuration/member/1)', () => {
    const salt = new TextEncoder().encode('murmuration/member/1')
    const sign = hkdf(sha256, seed, salt, new TextEncoder().encode('sign'), 32)
    const box = hkdf(sha256, seed, salt, new TextEncoder().encode('box'), 32)
    expect(me.id).toBe(toBase64url(ed25519.getPublicKey(sign)))
    expect(me.box).toBe(toBase64url(x25519.getPublicKey(box)))
    expect(me.id).toMatch(new RegExp(base64urlPattern(32)))
    expect(me.id).toHaveLength(43)
    expect(deriveMemberKey(seed.slice()).id).toBe(me.id)
    expect(deriveMemberKey(Uint8Array.from(seed, (b) => b ^ 1)).id).not.toBe(me.id)
    expect(memberPublicKey(me.id)).toEqual(ed25519.getPublicKey(sign))
  })

  it('refuses short seeds and reads only canonical member ids', () => {
    expect(() => deriveMemberKey(seed.subarray(0, 15))).toThrow(InvalidMemberKeyError)
    expect(memberPublicKey(me.id.slice(0, 42))).toBeNull()
    // the last character of a 32-byte text carries 2 zero bits: another one is a second spelling
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const twin = me.id.slice(0, 42) + alphabet[alphabet.indexOf(me.id[42]!) + 1]!
    expect(twin).not.toBe(me.id)
    expect(memberPublicKey(twin)).toBeNull()
  })

  it('stable room id: SHA-256 of murmuration/room/7, name and owner; not the transport id', () => {
    const expected = Buffer.from(
      sha256(new TextEncoder().encode(`murmuration/room/7\ntrip\n${me.id}`)),
    )
      .subarray(0, 16)
      .toString('hex')
    expect(room).toBe(expected)
    expect(stableRoomId('trip-2', me.id)).not.toBe(room)
    expect(room).not.toBe(deriveRoomKey('trip', seed).id)
  })
})

describe('bind', () => {
  const sig = signBind(me, room, peer)

  it('verifies for its room and PeerId only', () => {
    expect(verifyBind(me.id, sig, room, peer)).toBe(true)
    expect(verifyBind(me.id, sig, stableRoomId('trip-2', me.id), peer)).toBe(false)
    expect(verifyBind(me.id, sig, room, other)).toBe(false)
    const someoneElse = deriveMemberKey(Uint8Array.from({ length: 16 }, () => 9))
    expect(verifyBind(someoneElse.id, sig, room, peer)).toBe(false)
    expect(new TextDecoder().decode(bindMessage(room, peer))).toBe(
      `murmuration/bind/1\n${room}\n${peer}`,
    )
  })

  it('rejects a non-canonical signature (S + L) that a lax verifier would take', () => {
    const bytes = fromBase64url(sig, 64)
    const L = 2n ** 252n + 27742317777372353535851937790883648493n
    let s = 0n
    for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(bytes[i]!)
    s += L
    const lax = bytes.slice()
    for (let i = 32; i < 64; i++) {
      lax[i] = Number(s & 255n)
      s >>= 8n
    }
    // S + L still fits 256 bits (S < L < 2^253) and S + L ≡ S (mod L): the same signature,
    // spelled twice, which a verifier that reduces S would accept
    expect(verifyBind(me.id, toBase64url(lax), room, peer)).toBe(false)
  })

  it('never throws on junk', () => {
    expect(verifyBind('x', sig, room, peer)).toBe(false)
    expect(verifyBind(me.id, 'not base64url!', room, peer)).toBe(false)
    expect(verifyBind(me.id, sig.slice(1), room, peer)).toBe(false)
  })
})

describe('rekey boxes', () => {
  const members = [1, 2, 3, 4].map((n) =>
    deriveMemberKey(Uint8Array.from({ length: 16 }, (_, i) => n * 16 + i)),
  )
  const [alice, bob, carol, removed] = members as [
    (typeof members)[0],
    (typeof members)[0],
    (typeof members)[0],
    (typeof members)[0],
  ]
  const secret = Uint8Array.from({ length: 16 }, (_, i) => 200 + i)
  const recipients = [carol, alice, bob].map((m) => ({ member: m.id, box: m.box }))
  const sealed = sealEpochSecret(room, 3, secret, recipients, counter(7))
  const rekey = { epoch: 3, ...sealed }

  it('opens for each remaining member and for nobody else', () => {
    for (const member of [alice, bob, carol])
      expect(openEpochSecret(member, room, rekey)).toEqual(secret)
    expect(openEpochSecret(removed, room, rekey)).toBeNull()
    expect(openEpochSecret(me, room, rekey)).toBeNull()
    expect(sealed.boxes.map((b) => b.member)).toEqual([alice.id, bob.id, carol.id].sort())
  })

  it('a removed member with another member’s box still cannot open it', () => {
    const stolen = {
      epoch: 3,
      eph: sealed.eph,
      boxes: [{ ...sealed.boxes[0]!, member: removed.id }],
    }
    expect(openEpochSecret(removed, room, stolen)).toBeNull()
  })

  it('binds the room and the epoch into each box key', () => {
    expect(openEpochSecret(alice, room, { ...rekey, epoch: 4 })).toBeNull()
    expect(openEpochSecret(alice, stableRoomId('trip-2', me.id), rekey)).toBeNull()
  })

  it('a flipped bit in a box opens nothing', () => {
    const box = sealed.boxes.find((b) => b.member === alice.id)!
    const bytes = fromBase64url(box.sealed)
    bytes[0]! ^= 1
    const tampered = {
      ...rekey,
      boxes: rekey.boxes.map((b) => (b === box ? { ...b, sealed: toBase64url(bytes) } : b)),
    }
    expect(openEpochSecret(alice, room, tampered)).toBeNull()
    expect(openEpochSecret(bob, room, tampered)).toEqual(secret)
  })

  it('refuses a secret of the wrong size and an unusable box key', () => {
    expect(() => sealEpochSecret(room, 1, secret.subarray(0, 8), recipients)).toThrow(
      InvalidMemberKeyError,
    )
    expect(() =>
      sealEpochSecret(room, 1, secret, [
        { member: alice.id, box: toBase64url(new Uint8Array(32)) },
      ]),
    ).toThrow(InvalidMemberKeyError)
  })
})
