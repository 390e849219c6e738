/**
 * Member keys (docs/PROTOCOL.md §0.1, since version 7): a member is a person,
 * named by an invite. Everything opened from one invite link (tabs, a
 * reload, a headless agent) derives the same member key from the link's
 * `me` seed, binds its own PeerId to it (a `bind` record), and so counts as
 * one member for goal limits and quotas. Pure: @noble only (a friend's page
 * at http://<LAN-IP> has no crypto.subtle).
 *
 * From the 16-byte seed, HKDF-SHA256 with salt `murmuration/member/1`:
 * - info `sign`: the 32-byte Ed25519 seed; the member id is the base64url
 *   (no padding) of its public key, 43 characters;
 * - info `box`: the 32-byte X25519 private key whose public half an owner's
 *   `admit` publishes, so that rekeys can seal a new epoch's secret to it.
 */
import { ed25519, x25519 } from '@noble/curves/ed25519.js'
import { hkdf } from '@noble/hashes/hkdf.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { utf8ToBytes as utf8 } from '@noble/hashes/utils.js'
import { fromBase64url, toBase64url } from './base64url'
import { acceptableSignature, strictVerify, type Ed25519Verify } from './ed25519'
import { ROOM_SECRET_BYTES, randomBytes } from './room-key'
import { xchacha } from './xchacha'

/** 128 random bits, as a room secret: beyond guessing, and short enough for a link and a QR code. */
export const MEMBER_SEED_BYTES = 16
/** Longest seed accepted from a link (a longer one from a future version still works). */
export const MAX_MEMBER_SEED_BYTES = 64
/** Ed25519 and X25519 public keys are 32 bytes: 43 base64url characters. */
export const MEMBER_KEY_BYTES = 32
export const SIGNATURE_BYTES = 64
/** XChaCha20-Poly1305 nonce of a rekey box: random, 192 bits never collide. */
export const BOX_NONCE_BYTES = 24
/** A sealed epoch secret: the 16-byte secret and the 16-byte Poly1305 tag. */
export const SEALED_SECRET_BYTES = ROOM_SECRET_BYTES + 16

const MEMBER_SALT = utf8('murmuration/member/1')
const REKEY_SALT = utf8('murmuration/rekey/1')
/** Domain separation: a bind signature can never be mistaken for a record's (`murmuration/record/1`). */
export const BIND_PREFIX = 'murmuration/bind/1\n'

export class InvalidMemberKeyError extends Error {
  override name = 'InvalidMemberKeyError'
}

export interface MemberKey {
  /** the invite link's `me`: whoever holds it acts as this member */
  readonly seed: Uint8Array
  /** base64url of the Ed25519 public key (43 chars): the member's name on the wire */
  readonly id: string
  /** Ed25519 seed (RFC 8032 private key) */
  readonly signingKey: Uint8Array
  /** X25519 private key, opens rekey boxes */
  readonly boxPrivate: Uint8Array
  /** base64url of the X25519 public key, as an `admit` carries it */
  readonly box: string
}

/** A fresh member seed (one per invited person). */
export function newMemberSeed(random: (n: number) => Uint8Array = randomBytes): Uint8Array {
  return random(MEMBER_SEED_BYTES)
}

/** Derives a member's keys and id from its seed. Throws InvalidMemberKeyError. */
export function deriveMemberKey(seed: Uint8Array): MemberKey {
  if (seed.length < MEMBER_SEED_BYTES || seed.length > MAX_MEMBER_SEED_BYTES) {
    throw new InvalidMemberKeyError(`a member seed has ${MEMBER_SEED_BYTES}+ bytes`)
  }
  const signingKey = hkdf(sha256, seed, MEMBER_SALT, utf8('sign'), 32)
  const boxPrivate = hkdf(sha256, seed, MEMBER_SALT, utf8('box'), 32)
  return Object.freeze({
    seed: seed.slice(),
    id: toBase64url(ed25519.getPublicKey(signingKey)),
    signingKey,
    boxPrivate,
    box: toBase64url(x25519.getPublicKey(boxPrivate)),
  })
}

/** The Ed25519 public key a member id names, or null when it is not a canonical 32-byte text. */
export function memberPublicKey(member: string): Uint8Array | null {
  try {
    return fromBase64url(member, MEMBER_KEY_BYTES)
  } catch {
    return null
  }
}

/** What a bind signs: UTF-8 `murmuration/bind/1\n<stable room id>\n<PeerId>`. */
export function bindMessage(room: string, peerId: string): Uint8Array {
  return utf8(`${BIND_PREFIX}${room}\n${peerId}`)
}

/** The member's signature that PeerId `peerId` acts for it in room `room` (stable id), base64url. */
export function signBind(member: MemberKey, room: string, peerId: string): string {
  return toBase64url(ed25519.sign(bindMessage(room, peerId), member.signingKey))
}

/**
 * Whether `sig` is member `member`'s bind of `peerId` in room `room`, under
 * the strict rules of every record signature (ed25519.ts: canonical S and
 * key, no small-order key, cofactorless equation). Never throws.
 */
export function verifyBind(
  member: string,
  sig: string,
  room: string,
  peerId: string,
  verify: Ed25519Verify = strictVerify,
): boolean {
  try {
    const publicKey = memberPublicKey(member)
    if (publicKey === null) return false
    const signature = fromBase64url(sig, SIGNATURE_BYTES)
    if (!acceptableSignature(signature, publicKey)) return false
    return verify(signature, bindMessage(room, peerId), publicKey)
  } catch {
    return false
  }
}

/** A member a rekey seals the new epoch's secret to: its id and its `admit`'s box key. */
export interface RekeyRecipient {
  member: string
  box: string
}

/** One sealed copy of an epoch secret, as a `rekey` record's `boxes` carry it. */
export interface RekeyBox {
  member: string
  /** 24 random bytes, base64url */
  nonce: string
  /** XChaCha20-Poly1305 of the 16-byte secret with an empty associated data, base64url */
  sealed: string
}

/**
 * The XChaCha20-Poly1305 key of one box: HKDF-SHA256 of the X25519 shared
 * secret, salt `murmuration/rekey/1`, info `<stable id>\n<epoch>\n<member id>`
 * (epoch in decimal), 32 bytes.
 */
export function rekeyBoxKey(shared: Uint8Array, room: string, epoch: number, member: string) {
  return hkdf(sha256, shared, REKEY_SALT, utf8(`${room}\n${epoch}\n${member}`), 32)
}

/**
 * Seals epoch `epoch`'s secret to each recipient under one fresh ephemeral
 * X25519 key. Returns its public key and the boxes, sorted by member id (as
 * the schema wants). Throws InvalidMemberKeyError on a recipient whose box
 * key is not a usable X25519 key.
 */
export function sealEpochSecret(
  room: string,
  epoch: number,
  secret: Uint8Array,
  recipients: readonly RekeyRecipient[],
  random: (n: number) => Uint8Array = randomBytes,
): { eph: string; boxes: RekeyBox[] } {
  if (secret.length !== ROOM_SECRET_BYTES) {
    throw new InvalidMemberKeyError(`an epoch secret has ${ROOM_SECRET_BYTES} bytes`)
  }
  const ephPrivate = random(32)
  const boxes = [...new Map(recipients.map((r) => [r.member, r])).values()]
    .sort((a, b) => (a.member < b.member ? -1 : a.member > b.member ? 1 : 0))
    .map((recipient) => {
      let shared: Uint8Array
      try {
        shared = x25519.getSharedSecret(ephPrivate, fromBase64url(recipient.box, MEMBER_KEY_BYTES))
      } catch {
        throw new InvalidMemberKeyError(`member ${recipient.member} has no usable box key`)
      }
      const nonce = random(BOX_NONCE_BYTES)
      const key = rekeyBoxKey(shared, room, epoch, recipient.member)
      const sealed = xchacha.seal(key, nonce, new Uint8Array(0), secret)
      return { member: recipient.member, nonce: toBase64url(nonce), sealed: toBase64url(sealed) }
    })
  return { eph: toBase64url(x25519.getPublicKey(ephPrivate)), boxes }
}

/**
 * Opens `me`'s box of a rekey: the secret of epoch `rekey.epoch`, or null
 * when the rekey has no box for `me` or it does not open (not sealed to this
 * key, tampered with). Never throws.
 */
export function openEpochSecret(
  me: MemberKey,
  room: string,
  rekey: { epoch: number; eph: string; boxes: readonly RekeyBox[] },
): Uint8Array | null {
  const box = rekey.boxes.find((b) => b.member === me.id)
  if (box === undefined) return null
  try {
    const shared = x25519.getSharedSecret(me.boxPrivate, fromBase64url(rekey.eph, MEMBER_KEY_BYTES))
    const key = rekeyBoxKey(shared, room, rekey.epoch, me.id)
    const secret = xchacha.open(
      key,
      fromBase64url(box.nonce, BOX_NONCE_BYTES),
      new Uint8Array(0),
      fromBase64url(box.sealed, SEALED_SECRET_BYTES),
    )
    return secret.length === ROOM_SECRET_BYTES ? secret : null
  } catch {
    return null
  }
}
