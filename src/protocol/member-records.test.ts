import { describe, expect, it } from 'vitest'
import { decodeRecord, encodeRecord, WIRE_HEADER_BYTES } from './codec'
import { MAX_KEPT, MAX_MEMBERS, MAX_RECORD_BYTES, MAX_ROOM_EPOCH } from './limits'
import { makeSigner } from './fixtures.test-support'
import { deriveMemberKey, sealEpochSecret, signBind } from './member-key'
import { newAdmit, newBind, newRekey, stamp, type AdmitRecord, type RekeyRecord } from './records'
import { stableRoomId } from './room-key'
import { validateRecord } from './validate'

const member = (n: number) => deriveMemberKey(Uint8Array.from({ length: 16 }, (_, i) => n * 16 + i))
const OWNER = member(1)
const ALICE = member(2)
const ROOM = stableRoomId('trip', OWNER.id)
const T0 = 1_800_000_000_000

describe('bind, admit and rekey on the wire', () => {
  it('a bind signed for this PeerId decodes; one signed for another PeerId is a bad signature', async () => {
    const signer = await makeSigner()
    const other = await makeSigner()
    const good = newBind(ROOM, signer.peerId, ALICE)
    const decoded = decodeRecord(await encodeRecord(good, signer), { room: ROOM })
    expect(decoded.ok && decoded.record).toEqual(good)

    const forged = stamp<typeof good>({
      kind: 'bind',
      room: ROOM,
      from: signer.peerId,
      member: ALICE.id,
      sig: signBind(ALICE, ROOM, other.peerId),
    })
    const rejected = decodeRecord(await encodeRecord(forged, signer), { room: ROOM })
    expect(rejected).toMatchObject({ ok: false, reason: 'bad-signature' })
    // another room's bind does not verify in this one
    const elsewhere = stamp<typeof good>({
      ...good,
      sig: signBind(ALICE, stableRoomId('other', OWNER.id), signer.peerId),
    })
    expect(validateRecord(elsewhere)).toMatchObject({ ok: false, reason: 'bad-signature' })
  })

  it('an admit is strict: canonical keys, a trimmed name of 1–40 characters', async () => {
    const signer = await makeSigner()
    const admit = newAdmit(
      ROOM,
      signer.peerId,
      { member: ALICE.id, box: ALICE.box, name: '  Alice ', coOwner: false },
      T0,
    )
    expect(admit.name).toBe('Alice')
    expect(validateRecord(admit).ok).toBe(true)
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const twin = ALICE.id.slice(0, 42) + alphabet[alphabet.indexOf(ALICE.id[42]!) + 1]!
    const changed = (change: Partial<AdmitRecord>) =>
      validateRecord(stamp<AdmitRecord>({ ...admit, ...change })).ok
    expect(changed({ member: twin })).toBe(false)
    expect(changed({ name: 'x'.repeat(41) })).toBe(false)
    expect(changed({ name: ' Alice' })).toBe(false)
    expect(changed({ extra: 1 } as Partial<AdmitRecord>)).toBe(false)
  })

  it('a rekey: boxes sorted and unique, no box for a removed member, prev null exactly at epoch 1', async () => {
    const signer = await makeSigner()
    const sealed = sealEpochSecret(ROOM, 1, new Uint8Array(16), [
      { member: OWNER.id, box: OWNER.box },
    ])
    const fields = {
      epoch: 1,
      prev: null,
      removed: [ALICE.id],
      reason: 'remove' as const,
      ...sealed,
      kept: ['b'.repeat(32), 'a'.repeat(32)],
    }
    const rekey = newRekey(ROOM, signer.peerId, fields, T0)
    expect(rekey.kept).toEqual(['a'.repeat(32), 'b'.repeat(32)])
    expect(validateRecord(rekey).ok).toBe(true)
    const bad = (change: Partial<RekeyRecord>) =>
      validateRecord(stamp<RekeyRecord>({ ...rekey, ...change })).ok
    expect(bad({ prev: rekey.id })).toBe(false)
    expect(bad({ epoch: 2 })).toBe(false)
    expect(bad({ epoch: 2, prev: rekey.id })).toBe(true)
    expect(bad({ removed: [] })).toBe(false)
    expect(bad({ removed: [ALICE.id, ALICE.id] })).toBe(false)
    expect(bad({ removed: [OWNER.id] })).toBe(false)
    expect(bad({ boxes: [...rekey.boxes, ...rekey.boxes] })).toBe(false)
    // kept (since version 8): required, sorted, unique ids, at most MAX_KEPT
    expect(bad({ kept: [] })).toBe(true)
    expect(bad({ kept: ['b'.repeat(32), 'a'.repeat(32)] })).toBe(false)
    expect(bad({ kept: ['a'.repeat(32), 'a'.repeat(32)] })).toBe(false)
    expect(bad({ kept: ['not an id'] })).toBe(false)
    expect(bad({ kept: ids(MAX_KEPT + 1) })).toBe(false)
    const { kept: _kept, ...without } = rekey
    expect(validateRecord(stamp<RekeyRecord>(without as RekeyRecord)).ok).toBe(false)
  })

  it('a rekey with MAX_MEMBERS boxes, MAX_MEMBERS removed and a full kept fits in a record', async () => {
    const signer = await makeSigner()
    const distinct = (n: number) =>
      deriveMemberKey(Uint8Array.from({ length: 16 }, (_, i) => (i < 4 ? n >> (8 * i) : 7) & 0xff))
    const stay = Array.from({ length: MAX_MEMBERS }, (_, i) => distinct(1_000 + i))
    const gone = Array.from({ length: MAX_MEMBERS }, (_, i) => distinct(2_000 + i))
    const sealed = sealEpochSecret(
      ROOM,
      MAX_ROOM_EPOCH,
      new Uint8Array(16),
      stay.map((m) => ({ member: m.id, box: m.box })),
    )
    const rekey = newRekey(
      ROOM,
      signer.peerId,
      {
        epoch: MAX_ROOM_EPOCH,
        prev: 'f'.repeat(32),
        removed: gone.map((m) => m.id),
        reason: 'remove',
        ...sealed,
        kept: ids(MAX_KEPT),
      },
      T0,
    )
    const wire = await encodeRecord(rekey, signer)
    const decoded = decodeRecord(wire, { room: ROOM })
    expect(decoded.ok ? 'ok' : `${decoded.reason} ${decoded.detail} ${wire.length}`).toBe('ok')
    expect(wire.length - WIRE_HEADER_BYTES).toBeLessThanOrEqual(MAX_RECORD_BYTES)
  })
})

/** `n` distinct record ids, sorted. */
function ids(n: number): string[] {
  return Array.from({ length: n }, (_, i) => i.toString(16).padStart(32, '0'))
}
