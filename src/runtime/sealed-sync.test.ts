/**
 * Sync through the sealed store (sealed.ts) as the runtime wires it: archived
 * and refused ids are reconciled (§4.1, §7.5), so they are not fetched again,
 * and a record nobody asked for is refused (§7.3).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { encodeRecord, type Signer } from '../protocol/codec'
import { makeSigner, sampleRecords } from '../protocol/fixtures.test-support'
import type { PlanRecord } from '../protocol/records'
import { deriveRoomKey, sealRecord } from '../protocol/room-key'
import { SealedStore } from './sealed'
import { memoryStore, syncOnce } from './sealed-sync.test-support'
import { PlanStore } from './store'

const roomKey = deriveRoomKey('tombs', new Uint8Array(32).fill(3))
let alice: Signer
let signed: Array<{ record: PlanRecord; bytes: Uint8Array }>

beforeAll(async () => {
  alice = await makeSigner()
  const plan = sampleRecords(alice.peerId, roomKey.id).filter((r) => r.kind !== 'presence')
  signed = await Promise.all(
    plan.map(async (r) => ({ record: r as PlanRecord, bytes: await encodeRecord(r, alice) })),
  )
})

function store(): PlanStore {
  const s = memoryStore(roomKey)
  for (const { record, bytes } of signed) s.addVerified(record, bytes, false)
  return s
}

const sync = (a: PlanStore, b: PlanStore) => syncOnce(roomKey, a, b)

describe('sync through the sealed store', () => {
  it('reconciles archived ids: an archiving peer does not fetch them back', async () => {
    const archiver = store()
    const holder = store()
    const gone = signed.slice(0, 3).map((s) => s.record.id)
    expect(await archiver.archive(gone)).toBe(3)
    const [mine, theirs] = await sync(archiver, holder)
    expect(mine.error).toBeUndefined()
    // HELLO counts held and archived ids alike: equal sets, nothing to do
    expect(mine.inSync).toBe(true)
    expect(mine.wanted + theirs.wanted).toBe(0)
    expect(gone.every((id) => !archiver.has(id))).toBe(true)
  })

  it('a fresh peer fetches from a holder what an archiver lists as archived, never from the archiver', async () => {
    const archiver = store()
    await archiver.archive(signed.slice(0, 3).map((s) => s.record.id))
    const fresh = memoryStore(roomKey)
    const [fromArchiver] = await sync(fresh, archiver)
    expect(fromArchiver.accepted).toBe(signed.length - 3)
    expect(fresh.size).toBe(signed.length - 3)
    const [fromHolder] = await sync(fresh, store())
    expect(fromHolder.accepted).toBe(3)
    expect(fresh.size).toBe(signed.length)
  })

  it('refuses a sealed record nobody asked for', async () => {
    const s = new SealedStore(roomKey, store())
    const other = await makeSigner()
    const [extra] = sampleRecords(other.peerId, roomKey.id)
    const sealed = sealRecord(roomKey, await encodeRecord(extra!, other))
    expect(await s.add(sealed, 'peer', () => false)).toBe('reject')
    expect(await s.addMany([sealed, Uint8Array.of(1, 2, 3)], 'peer', () => false)).toEqual([
      'reject',
      'reject',
    ])
    expect(await s.addMany([sealed], 'peer')).toEqual(['accept'])
  })
})
