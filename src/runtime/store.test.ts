/** The plan store's archive: records dropped from memory and storage, ids kept for good. */
import { describe, expect, it } from 'vitest'
import { encodeRecord } from '../protocol/codec'
import { makeSigner, sampleRecords } from '../protocol/fixtures.test-support'
import { isPlanRecord, PlanStore } from './store'
import { memoryPersistence } from './persist'
import { newCancel, type PlanRecord } from '../protocol/records'
import { AUTHOR_QUOTA } from '../protocol/limits'

async function setup() {
  const signer = await makeSigner()
  const records = sampleRecords(signer.peerId, 'r').filter(isPlanRecord) as PlanRecord[]
  const signed = await Promise.all(
    records.map(async (r) => ({ r, bytes: await encodeRecord(r, signer) })),
  )
  const persistence = memoryPersistence()
  const seen: string[] = []
  const store = new PlanStore({ room: 'r', persistence, onRecord: (r) => void seen.push(r.id) })
  for (const { r, bytes } of signed) store.addVerified(r, bytes)
  await new Promise((resolve) => setTimeout(resolve, 0))
  return { signed, persistence, store, seen }
}

describe('PlanStore archive', () => {
  it('drops records from memory and storage, and never takes them back', async () => {
    const { signed, persistence, store, seen } = await setup()
    const [a, b] = signed as [(typeof signed)[0], (typeof signed)[0]]
    expect(await store.archive([a.r.id, b.r.id])).toBe(2)
    expect(store.has(a.r.id)).toBe(false)
    expect(store.size).toBe(signed.length - 2)
    expect(persistence.records.has(a.r.id)).toBe(false)
    expect([...store.tombstones()].sort()).toEqual([a.r.id, b.r.id].sort())
    // gossip or sync replaying an archived record changes nothing
    expect(store.addVerified(a.r, a.bytes)).toBe(false)
    expect(await store.add(b.bytes, 'peer')).toBe('ignore')
    expect(seen.length).toBe(signed.length)
  })

  it('remembers archived ids across a restart', async () => {
    const { signed, persistence, store } = await setup()
    const a = signed[0]!
    await store.archive([a.r.id])
    persistence.records.set(a.r.id, a.bytes) // a sibling tab wrote it back meanwhile
    const again = new PlanStore({ room: 'r', persistence, onRecord: () => {} })
    await again.restore()
    expect(again.has(a.r.id)).toBe(false)
    expect(again.size).toBe(signed.length - 1)
    expect([...again.tombstones()]).toEqual([a.r.id])
  })
})

describe('PlanStore close', () => {
  it('takes nothing once closed: a sync batch verified while the peer stops is not held unpersisted', async () => {
    const signer = await makeSigner()
    const [first, second] = sampleRecords(signer.peerId, 'r').filter(isPlanRecord) as PlanRecord[]
    const persistence = memoryPersistence()
    const store = new PlanStore({ room: 'r', persistence, onRecord: () => {} })
    expect(await store.add(await encodeRecord(first!, signer), 'peer')).toBe('accept')
    const late = store.add(await encodeRecord(second!, signer), 'peer')
    store.close()
    expect(await late).toBe('ignore')
    expect(store.has(second!.id)).toBe(false)
    expect([...persistence.records.keys()]).toEqual([first!.id])
  })
})

describe('PlanStore author quota', () => {
  it('keeps an author’s lowest-id records of a kind, at every door, and remembers the rest', async () => {
    const signer = await makeSigner()
    const limit = AUTHOR_QUOTA.cancel
    const cancels = Array.from({ length: limit + 40 }, (_, i) =>
      newCancel('r', signer.peerId, i.toString(16).padStart(32, '0'), 1_700_000_000_000 + i, ''),
    )
    const signed = await Promise.all(
      cancels.map(async (r) => ({ r, bytes: await encodeRecord(r, signer) })),
    )
    const persistence = memoryPersistence()
    const store = new PlanStore({ room: 'r', persistence, onRecord: () => {} })
    // gossip (addVerified) and sync (add) alike, in arrival order
    for (const [i, { r, bytes }] of signed.entries()) {
      if (i % 2 === 0) store.addVerified(r, bytes)
      else await store.add(bytes, 'peer')
    }
    const lowest = cancels
      .map((r) => r.id)
      .sort()
      .slice(0, limit)
    expect(store.size).toBe(limit)
    expect([...store.ids()].sort()).toEqual(lowest)
    // ids dropped after their signature was checked are reconciled as held
    // (not fetched again), never offered
    const tombstones = [...store.tombstones()]
    expect(tombstones.length).toBe(store.refusedCount)
    expect(tombstones.length).toBeGreaterThan(0)
    for (const id of tombstones) expect(lowest).not.toContain(id)
    const over = signed.find(({ r }) => !lowest.includes(r.id))!
    expect(store.wouldKeep(over.r)).toBe(false)
    expect(await store.add(over.bytes, 'peer')).toBe('ignore')
    // by sync, a record over the quota is dropped before its signature is checked
    const forged = new Uint8Array(over.bytes)
    forged[1]! ^= 1
    expect(await store.add(forged, 'peer')).toBe('ignore')
    expect(store.size).toBe(limit)
    // storage holds what memory holds, and a reload applies the same rule
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect([...persistence.records.keys()].sort()).toEqual(lowest)
    for (const { r, bytes } of signed) persistence.records.set(r.id, bytes)
    const again = new PlanStore({ room: 'r', persistence, onRecord: () => {} })
    await again.restore()
    expect([...again.ids()].sort()).toEqual(lowest)
  })
})
