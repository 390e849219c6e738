import { describe, expect, it } from 'vitest'
import { decodeRecord, encodeRecord } from './codec'
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
    }
    const rekey = newRekey(ROOM, signer.peerId, fields, T0)
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
  })
})
