/**
 * The Node verification threads give decodeRecord's verdicts, record for
 * record, and a plan store fed in batches keeps what it keeps one by one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inProcessDecoder } from './batch-verify'
import { decodeRecord, encodeRecord, type Signer } from './codec'
import { makeSigner, sampleRecords } from './fixtures.test-support'
import { createVerifyPool, MIN_CHUNK_RECORDS } from './verify-pool.node.js'
import { nodeVerify } from './verify.node.js'
import { memoryPersistence } from '../runtime/persist'
import { PlanStore } from '../runtime/store'

const ROOM = 'pool'
let alice: Signer
let good: Uint8Array[]
const pool = createVerifyPool({ threads: 2 })

beforeAll(async () => {
  alice = await makeSigner()
  good = await Promise.all(sampleRecords(alice.peerId, ROOM).map((r) => encodeRecord(r, alice)))
})
afterAll(() => pool.close())

/** good records, and each with one byte flipped (signature, body, or format byte) */
function mixed(): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let round = 0; out.length < 4 * MIN_CHUNK_RECORDS; round++) {
    for (const bytes of good) {
      out.push(bytes)
      const bad = bytes.slice()
      const at = (round * 37 + bad.length) % bad.length
      bad[at]! ^= 1 + (round % 255)
      out.push(bad)
    }
  }
  return out
}

describe('createVerifyPool', () => {
  it('answers exactly what decodeRecord does, in order, from its threads', async () => {
    const batch = mixed()
    // cold, it checks in this thread while its threads start
    const cold = await pool.decode(batch, ROOM)
    await pool.warm()
    const verdicts = await pool.decode(batch, ROOM)
    expect(verdicts).toEqual(cold)
    expect(pool.threads).toBe(2)
    const expected = batch.map((b) => decodeRecord(b, { room: ROOM, verify: nodeVerify }))
    expect(verdicts.map((v) => v.ok)).toEqual(expected.map((e) => e.ok))
    expect(verdicts.filter((v) => v.ok).length).toBeGreaterThan(0)
    expect(verdicts.filter((v) => !v.ok).length).toBeGreaterThan(0)
    // another room's records are refused there too
    expect((await pool.decode(batch, 'other')).every((v) => !v.ok)).toBe(true)
  })

  it('takes its threads up while a caller feeds it from promises alone', async () => {
    // as a sync over an in-memory stream: no timer or I/O between batches, so
    // only the pool itself can let the threads' "started" messages in
    const fresh = createVerifyPool({ threads: 1 })
    try {
      const batch = mixed()
      const deadline = Date.now() + 30_000
      while (fresh.checked.onThreads === 0 && Date.now() < deadline) await fresh.decode(batch, ROOM)
      expect(fresh.checked.onThreads).toBeGreaterThan(0)
    } finally {
      await fresh.close()
    }
  }, 40_000)

  it('checks in-process once its threads are gone', async () => {
    const dying = createVerifyPool({ threads: 1 })
    await dying.warm()
    await dying.close()
    const batch = mixed()
    const verdicts = await dying.decode(batch, ROOM)
    expect(verdicts).toEqual(await inProcessDecoder(nodeVerify)(batch, ROOM))
  })
})

describe('PlanStore.addMany', () => {
  it('keeps what add keeps, with the same verdicts, and counts what sync brought', async () => {
    const batch = mixed()
    const one = new PlanStore({ room: ROOM, persistence: memoryPersistence(), onRecord: () => {} })
    const many = new PlanStore({
      room: ROOM,
      persistence: memoryPersistence(),
      onRecord: () => {},
      decoder: pool.decode,
    })
    const singly = []
    for (const bytes of batch) singly.push(await one.add(bytes, 'peer'))
    const batched = await many.addMany(batch, 'peer')
    expect(batched).toEqual(singly)
    expect([...many.ids()].sort()).toEqual([...one.ids()].sort())
    expect(many.synced).toBe(one.synced)
    expect(many.revision()).toBeGreaterThan(0)
  })

  it('refuses a verified record nobody asked for', async () => {
    const store = new PlanStore({
      room: ROOM,
      persistence: memoryPersistence(),
      onRecord: () => {},
    })
    const verdicts = await store.addMany(good, 'peer', () => false)
    expect(verdicts.every((v) => v === 'reject')).toBe(true)
    expect(store.size).toBe(0)
  })
})
