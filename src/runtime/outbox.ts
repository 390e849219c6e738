/**
 * What this peer publishes (its core's records, its person's, its member's),
 * signed here one record after another, in the order given: each is gossiped
 * on the current epoch's network, and a plan record goes into the plan store
 * as sent (no check again: this peer just signed it).
 */
import { encodeRecord, type Signer } from '../protocol/codec'
import type { WireRecord } from '../protocol/records'
import { isPlanRecord, type PlanStore } from './store'

export interface OutboxInit {
  signer: Signer
  /** gossips one signed record (`plain`) on the current epoch's network; none yet: not sent */
  send: (record: WireRecord, plain: Uint8Array) => Promise<void> | undefined
  store: PlanStore
  log: (message: string) => void
}

export class Outbox {
  private queue = Promise.resolve()

  constructor(private readonly init: OutboxInit) {}

  /** queues `records` behind what is queued already */
  publish(records: WireRecord[]): void {
    const { signer, send, store, log } = this.init
    this.queue = this.queue.then(async () => {
      for (const record of records) {
        const plain = await encodeRecord(record, signer)
        try {
          await send(record, plain)
        } catch (err) {
          log(`could not publish a ${record.kind}: ${(err as Error).message}`)
        }
        if (isPlanRecord(record)) store.addVerified(record, plain)
      }
    })
  }

  /** publishes and resolves once sent (members.ts waits for its admits and rekeys) */
  async publishNow(records: WireRecord[]): Promise<void> {
    this.publish(records)
    await this.queue
  }

  /** settles once everything queued so far is sent */
  sent(): Promise<void> {
    return this.queue
  }
}
