/**
 * The records a sync session receives, handed to the store in batches
 * (RecordStore.addMany) and checked several batches at once while the next
 * frames are read: on a Node peer the checks run on every core
 * (verify-pool.node.ts), and the session reads on meanwhile. Verdicts are
 * tallied in the session's report; too many rejected records is a violation.
 */
import { ProtocolViolationError } from './errors'
import { errMsg, type NetLogger } from './log'
import type { RecordStore, SyncReport, Verdict } from './types'

/**
 * Records handed to the store at once: enough that a Node peer's
 * verification threads each get a chunk worth a postMessage, few enough that
 * the first records of a big join reach the plan within milliseconds.
 */
export const SYNC_VERIFY_BATCH_RECORDS = 256
/** A batch is also cut at this many bytes (records can be up to 256 KiB). */
export const SYNC_VERIFY_BATCH_BYTES = 1024 * 1024
/**
 * Batches being checked while the next is read: the threads verify while the
 * main thread reads and decodes frames; more would only hold more memory.
 */
export const SYNC_VERIFY_BATCHES_IN_FLIGHT = 4

export interface RecordIntakeInit {
  store: RecordStore
  peer: string
  logger: NetLogger
  report: SyncReport
  /** asked about each verified record's id: false (nobody asked for it) rejects it */
  expected: (id: string) => boolean
  maxRejects: number
  /** called before waiting on our own checks (the session's idle timer stops) */
  onWait: () => void
}

export class RecordIntake {
  private batch: Uint8Array[] = []
  private batchBytes = 0
  private readonly checking = new Set<Promise<void>>()

  constructor(private readonly init: RecordIntakeInit) {}

  /** Takes one record; when a batch is full, sends it and waits while too many are out. */
  async push(record: Uint8Array): Promise<void> {
    this.batch.push(record)
    this.batchBytes += record.length
    if (
      this.batch.length >= SYNC_VERIFY_BATCH_RECORDS ||
      this.batchBytes >= SYNC_VERIFY_BATCH_BYTES
    ) {
      await this.dispatch(SYNC_VERIFY_BATCHES_IN_FLIGHT - 1)
    }
  }

  /** Sends what is left and waits for every verdict. Throws on too many rejects. */
  finish(): Promise<void> {
    return this.dispatch(0)
  }

  /** Resolves once no batch is being checked (whatever happened to the session). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.checking])
  }

  private async dispatch(inFlight: number): Promise<void> {
    if (this.batch.length > 0) {
      const records = this.batch
      this.batch = []
      this.batchBytes = 0
      const job: Promise<void> = this.add(records).then((verdicts) => {
        this.tally(verdicts, records)
        this.checking.delete(job)
      })
      this.checking.add(job)
    }
    if (this.checking.size > inFlight) this.init.onWait()
    while (this.checking.size > inFlight) {
      await Promise.race(this.checking)
      this.tooMany()
    }
    this.tooMany()
  }

  private tooMany(): void {
    if (this.init.report.rejected > this.init.maxRejects) {
      throw new ProtocolViolationError('sync: too many rejected records')
    }
  }

  /** one batch to the store: its verdicts (a store that throws rejects them all) */
  private async add(records: Uint8Array[]): Promise<Verdict[]> {
    const { store, peer, expected, logger } = this.init
    try {
      if (store.addMany) return await store.addMany(records, peer, expected)
      const verdicts: Verdict[] = []
      for (const r of records) verdicts.push(await store.add(r, peer, expected))
      return verdicts
    } catch (err) {
      logger.warn('sync: store.add threw (treated as reject)', { peer, error: errMsg(err) })
      return records.map(() => 'reject' as const)
    }
  }

  private tally(verdicts: Verdict[], records: Uint8Array[]): void {
    const { report, logger, peer } = this.init
    verdicts.forEach((verdict, i) => {
      if (verdict === 'accept') report.accepted++
      else if (verdict === 'ignore') report.ignored++
      else {
        report.rejected++
        logger.warn('sync: record rejected (invalid, or not asked for)', {
          peer,
          bytes: records[i]?.length ?? 0,
        })
      }
    })
  }
}
