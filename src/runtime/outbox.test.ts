/** The outbox: what this peer publishes is signed, sent in order, and kept when it is a plan record. */
import { describe, expect, it } from 'vitest'
import { decodeRecord } from '../protocol/codec'
import { makeSigner, sampleRecords } from '../protocol/fixtures.test-support'
import type { WireRecord } from '../protocol/records'
import { Outbox } from './outbox'
import { memoryPersistence } from './persist'
import { isPlanRecord, PlanStore } from './store'

async function setup(send: (record: WireRecord) => Promise<void> | undefined) {
  const signer = await makeSigner()
  const records = sampleRecords(signer.peerId, 'r')
  const store = new PlanStore({ room: 'r', persistence: memoryPersistence(), onRecord: () => {} })
  const logged: string[] = []
  const sent: Array<{ record: WireRecord; plain: Uint8Array }> = []
  const outbox = new Outbox({
    signer,
    send: (record, plain) => {
      const sending = send(record)
      if (sending) sent.push({ record, plain })
      return sending
    },
    store,
    log: (line) => logged.push(line),
  })
  return { records, store, outbox, sent, logged }
}

describe('Outbox', () => {
  it('signs and sends every record in the order published; plan records are kept as signed', async () => {
    const { records, store, outbox, sent } = await setup(async () => {})
    expect(records.some((r) => !isPlanRecord(r))).toBe(true) // a presence beat among them
    outbox.publish(records.slice(0, 3))
    await outbox.publishNow(records.slice(3))
    expect(sent.map((s) => s.record.id)).toEqual(records.map((r) => r.id))
    for (const { record, plain } of sent) {
      const decoded = decodeRecord(plain)
      expect(decoded.ok && decoded.record.id).toBe(record.id)
    }
    const plans = records.filter(isPlanRecord)
    expect(store.size).toBe(plans.length)
    for (const record of plans)
      expect(store.get(record.id)).toEqual(sent.find((s) => s.record === record)!.plain)
  })

  it('a record that fails to send is logged and still kept; the next ones go out', async () => {
    const { records, store, outbox, sent, logged } = await setup(async (record) => {
      if (record === records[0]) throw new Error('no peers subscribed')
    })
    await outbox.publishNow(records.slice(0, 2))
    expect(logged).toEqual([`could not publish a ${records[0]!.kind}: no peers subscribed`])
    expect(store.has(records[0]!.id)).toBe(true)
    expect(sent.map((s) => s.record.id)).toEqual([records[0]!.id, records[1]!.id])
  })

  it('with no network yet nothing is sent, and plan records are kept for sync to carry', async () => {
    const { records, store, outbox, sent, logged } = await setup(() => undefined)
    outbox.publish(records)
    await outbox.sent()
    expect(sent).toEqual([])
    expect(logged).toEqual([])
    expect(store.size).toBe(records.filter(isPlanRecord).length)
  })
})
