/**
 * Known answers for members (docs/PROTOCOL.md §0.1, since version 7): a
 * member key from a fixed seed, the stable room id, a bind with its
 * signature, an owner's admit, a rekey with one box that a fixed member key
 * opens, and a version-7 invite link. generate.ts puts them under
 * `members` in docs/test-vectors.json; members.test.ts recomputes them with
 * node:crypto.
 */
import { sign, type KeyObject } from 'node:crypto'
import { x25519 } from '@noble/curves/ed25519.js'
import { canonicalJson } from '../../src/protocol/canonical'
import { SIGNING_PREFIX, WIRE_FORMAT } from '../../src/protocol/codec'
import { memberInviteLink } from '../../src/protocol/invite'
import {
  bindMessage,
  deriveMemberKey,
  rekeyBoxKey,
  sealEpochSecret,
} from '../../src/protocol/member-key'
import { newAdmit, newBind, newRekey, type WireRecord } from '../../src/protocol/records'
import { deriveRoomKey, stableRoomId } from '../../src/protocol/room-key'

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')
const fixed = (length: number, start: number) =>
  Uint8Array.from({ length }, (_, i) => (start + i) & 255)

/** The owner's member seed (bytes 0x20 … 0x2f) and a second member's (0x30 … 0x3f). */
export const VECTOR_MEMBER_SEEDS = { owner: fixed(16, 0x20), guest: fixed(16, 0x30) }
/** The rekey's ephemeral X25519 private key, its box nonce and the new epoch secret: fixed here, random in a real rekey. */
const EPH_PRIVATE = fixed(32, 0x50)
const BOX_NONCE = fixed(24, 0x70)
const EPOCH_SECRET = fixed(16, 0x90)
const AT = 1_700_000_003_000

export function memberVectors(
  room: { name: string; secret: Uint8Array },
  key: KeyObject,
  peerId: string,
) {
  const owner = deriveMemberKey(VECTOR_MEMBER_SEEDS.owner)
  const guest = deriveMemberKey(VECTOR_MEMBER_SEEDS.guest)
  const stable = stableRoomId(room.name, owner.id)
  const wire = <R extends WireRecord>(record: R) => {
    const body = new TextEncoder().encode(canonicalJson(record))
    const signature = sign(null, Buffer.concat([SIGNING_PREFIX, body]), key)
    return { record, wire: hex(Buffer.concat([Buffer.from([WIRE_FORMAT]), signature, body])) }
  }
  const bind = newBind(stable, peerId, owner)
  const admit = newAdmit(
    stable,
    peerId,
    { member: guest.id, box: guest.box, name: 'Guest 1', coOwner: false },
    AT,
  )
  let draws = 0
  const sealed = sealEpochSecret(
    stable,
    1,
    EPOCH_SECRET,
    [{ member: guest.id, box: guest.box }],
    // first draw: the ephemeral key; then one nonce per box
    (n) => (draws++ === 0 ? EPH_PRIVATE.slice(0, n) : BOX_NONCE.slice(0, n)),
  )
  const removed = deriveMemberKey(fixed(16, 0x40))
  const rekey = newRekey(
    stable,
    peerId,
    { epoch: 1, prev: null, removed: [removed.id], reason: 'remove', ...sealed, kept: [] },
    AT + 1_000,
  )
  const shared = x25519.getSharedSecret(EPH_PRIVATE, Buffer.from(guest.box, 'base64url'))
  const epoch1 = deriveRoomKey(room.name, EPOCH_SECRET)
  return {
    about:
      '§0.1 (since version 7): member keys by HKDF-SHA256 (salt and info UTF-8), ids and keys base64url without padding; records signed by key.peerId',
    memberKey: {
      seed: hex(owner.seed),
      me: b64url(owner.seed),
      salt: 'murmuration/member/1',
      signingKey: hex(owner.signingKey),
      memberId: owner.id,
      boxPrivate: hex(owner.boxPrivate),
      box: owner.box,
    },
    stableId: {
      name: room.name,
      owner: owner.id,
      input: `murmuration/room/7\n${room.name}\n${owner.id}`,
      id: stable,
    },
    bind: {
      message: new TextDecoder().decode(bindMessage(stable, peerId)),
      ...wire(bind),
    },
    admit: { guestSeed: hex(guest.seed), ...wire(admit) },
    rekey: {
      about:
        'one box, for the admitted guest; ephPrivate, the nonce and the epoch secret are fixed here (random in a real rekey)',
      ephPrivate: hex(EPH_PRIVATE),
      shared: hex(shared),
      boxKeyInfo: `${stable}\n1\n${guest.id}`,
      boxKey: hex(rekeyBoxKey(shared, stable, 1, guest.id)),
      epochSecret: hex(EPOCH_SECRET),
      epoch1TransportId: epoch1.id,
      removedSeed: hex(removed.seed),
      ...wire(rekey),
    },
    invite: {
      about: 'the guest’s link to epoch 0 (the room’s first secret), as an executor',
      link: memberInviteLink(
        'http://192.168.1.20:8080',
        { room: deriveRoomKey(room.name, room.secret), owner: owner.id, me: guest.seed },
        'executor',
      ),
    },
  }
}
