/**
 * The plan store: every plan record this peer holds, as the signed bytes it
 * was received in (so anti-entropy can forward them verbatim) and as a typed
 * record. It is the RecordStore the network layer syncs, and the only place
 * where records enter the peer: from gossip, from sync, from storage, or
 * from this peer itself. Each is verified once, persisted, and handed on.
 */
import type { RecordStore, Verdict } from '../net/types'
import { decodeRecordAsync, WIRE_HEADER_BYTES } from '../protocol/codec'
import type { PlanRecord, WireRecord } from '../protocol/records'
import type { RecordPersistence } from './persist'

export interface PlanStoreInit {
  room: string
  persistence: RecordPersistence
  /** called once for every new record, whatever its source */
  onRecord: (record: PlanRecord) => void
  log?: (message: string) => void
}

export function isPlanRecord(record: WireRecord): record is PlanRecord {
  return record.kind !== 'presence'
}

export class PlanStore implements RecordStore {
  private readonly bytes = new Map<string, Uint8Array>()
  /** ids archived: dropped on purpose, never taken back (see RecordStore.tombstones) */
  private readonly archived = new Set<string>()
  /** records (and their bytes) kept from anti-entropy sync */
  synced = 0
  syncedBytes = 0

  constructor(private readonly init: PlanStoreInit) {}

  get size(): number {
    return this.bytes.size
  }

  has(id: string): boolean {
    return this.bytes.has(id)
  }

  ids(): Iterable<string> {
    return this.bytes.keys()
  }

  tombstones(): Iterable<string> {
    return this.archived
  }

  get archivedCount(): number {
    return this.archived.size
  }

  /**
   * Drops records for good (archived goals): from memory and storage; their
   * ids are remembered, so sync does not fetch them again and gossip
   * replaying one is ignored. Returns how many records were dropped.
   */
  async archive(ids: Iterable<string>): Promise<number> {
    const list = [...ids].filter((id) => !this.archived.has(id))
    let dropped = 0
    for (const id of list) {
      if (this.bytes.delete(id)) dropped++
      this.archived.add(id)
    }
    await this.init.persistence.saveTombstones?.(list)
    await this.init.persistence.remove?.(list)
    return dropped
  }

  get(id: string): Uint8Array | undefined {
    return this.bytes.get(id)
  }

  /** Add a record already decoded and verified (gossip validator, or our own). */
  addVerified(record: PlanRecord, bytes: Uint8Array, persist = true): boolean {
    if (this.bytes.has(record.id) || this.archived.has(record.id)) return false
    this.bytes.set(record.id, bytes)
    if (persist) {
      this.init.persistence.save(record.id, bytes).catch((err: Error) => {
        this.init.log?.(`could not persist record ${record.id}: ${err.message}`)
      })
    }
    this.init.onRecord(record)
    return true
  }

  /** Verify and add bytes from sync or storage. Never throws. */
  async add(bytes: Uint8Array, from: string, expected?: (id: string) => boolean): Promise<Verdict> {
    const verdict = await this.verifyAndAdd(bytes, from, true, expected)
    if (verdict === 'accept') {
      this.synced++
      this.syncedBytes += bytes.length
    }
    return verdict
  }

  private async verifyAndAdd(
    bytes: Uint8Array,
    from: string,
    persist: boolean,
    expected?: (id: string) => boolean,
  ): Promise<Verdict> {
    const decoded = await decodeRecordAsync(bytes, { room: this.init.room })
    if (!decoded.ok) {
      this.init.log?.(`dropped a record from ${from}: ${decoded.reason} (${decoded.detail})`)
      return 'reject'
    }
    if (expected !== undefined && !expected(decoded.record.id)) {
      this.init.log?.(`dropped a record from ${from} that nobody asked for: ${decoded.record.id}`)
      return 'reject'
    }
    if (!isPlanRecord(decoded.record)) {
      this.init.log?.(`dropped a presence beat offered as a plan record by ${from}`)
      return 'reject'
    }
    return this.addVerified(decoded.record, bytes, persist) ? 'accept' : 'ignore'
  }

  /** Decoded copies of every record held (already verified: no signature check again). */
  records(): PlanRecord[] {
    const records: PlanRecord[] = []
    for (const bytes of this.bytes.values()) {
      const record = JSON.parse(
        new TextDecoder().decode(bytes.subarray(WIRE_HEADER_BYTES)),
      ) as PlanRecord
      records.push(record)
    }
    return records
  }

  /** Load what persistence holds, verifying each record again. Returns how many were dropped. */
  async restore(): Promise<number> {
    for (const id of (await this.init.persistence.loadTombstones?.()) ?? []) this.archived.add(id)
    let dropped = 0
    for (const bytes of await this.init.persistence.load()) {
      if ((await this.verifyAndAdd(bytes, 'storage', false)) === 'reject') dropped++
    }
    return dropped
  }
}
