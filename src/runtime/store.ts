/**
 * The plan store: every plan record this peer holds, as the signed bytes it
 * was received in (so anti-entropy can forward them verbatim) and as a typed
 * record. It is the RecordStore the network layer syncs, and the only place
 * where records enter the peer: from gossip, from sync, from storage, or
 * from this peer itself. Each is verified once, held to its author's quota
 * (src/protocol/quota.ts: the same rule at every door), persisted, and
 * handed on.
 */
import type { RecordStore, Verdict } from '../net/types'
import { decodeRecordAsync, WIRE_HEADER_BYTES } from '../protocol/codec'
import { inProcessDecoder, type BatchDecoder } from '../protocol/batch-verify'
import { AUTHOR_QUOTA } from '../protocol/limits'
import { wireRecordSchema } from '../protocol/schemas'
import { AuthorQuota, type QuotaKey } from '../protocol/quota'
import type { PlanRecord, WireRecord } from '../protocol/records'
import type { KeptCandidate } from '../protocol/kept'
import { groupArchived, type RecordPersistence } from './persist'

export interface PlanStoreInit {
  room: string
  persistence: RecordPersistence
  /** called once for every new record, whatever its source */
  onRecord: (record: PlanRecord) => void
  log?: (message: string) => void
  /**
   * Checks a batch of synced records (addMany): default in this thread,
   * with WebCrypto; a Node peer passes its worker threads (verify-pool.node.ts)
   */
  decoder?: BatchDecoder
}

/**
 * Ids refused or evicted by the author quota that a peer remembers, so that
 * sync does not fetch them again (they are reconciled as tombstones). A
 * flooder's ids past this many are forgotten oldest first: fetching one
 * again costs a signature check, and it is refused again.
 */
export const MAX_REFUSED_IDS = 65_536

export function isPlanRecord(record: WireRecord): record is PlanRecord {
  return record.kind !== 'presence'
}

export class PlanStore implements RecordStore {
  private readonly bytes = new Map<string, Uint8Array>()
  /** ids archived: dropped on purpose, never taken back (see RecordStore.tombstones) */
  private readonly archived = new Set<string>()
  /** ids over their author's quota (refused or evicted), oldest first; not persisted */
  private readonly refused = new Set<string>()
  private readonly quota = new AuthorQuota()
  /** records (and their bytes) kept from anti-entropy sync */
  synced = 0
  syncedBytes = 0
  /** the peer is stopping: what still arrives is not taken (see close) */
  private closed = false
  /** bumped whenever the ids held, archived or refused change (RecordStore.revision) */
  private changes = 0

  private readonly decoder: BatchDecoder

  constructor(private readonly init: PlanStoreInit) {
    this.decoder = init.decoder ?? inProcessDecoder()
  }

  /**
   * Takes no more records: a sync batch still being verified when the peer
   * stops would otherwise be added after its persistence closed, and a
   * restart would not find it.
   */
  close(): void {
    this.closed = true
  }

  get size(): number {
    return this.bytes.size
  }

  has(id: string): boolean {
    return this.bytes.has(id)
  }

  ids(): Iterable<string> {
    return this.bytes.keys()
  }

  /** changes whenever ids() or tombstones() may have (sync reuses its sorted set meanwhile) */
  revision(): number {
    return this.changes
  }

  /** archived ids and ids over their author's quota: sync treats them as held, never offers them */
  *tombstones(): Iterable<string> {
    yield* this.archived
    for (const id of this.refused) if (!this.archived.has(id)) yield id
  }

  /** Would `record` be kept (new and within its author's quota)? For the gossip validator. */
  wouldKeep(record: PlanRecord): boolean {
    return !this.has(record.id) && !this.archived.has(record.id) && this.quota.allows(record)
  }

  /**
   * Remembers a verified record the gossip validator would not keep because
   * of its author's quota, so that sync does not fetch it again.
   */
  noteOverQuota(record: PlanRecord): void {
    if (this.has(record.id) || this.archived.has(record.id)) return
    if (!this.quota.allows(record)) this.refuse(record.id)
  }

  /** Records over their authors' quota refused or evicted so far (remembered ones). */
  get refusedCount(): number {
    return this.refused.size
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
    this.changes++
    const authored: KeptCandidate[] = []
    for (const id of list) {
      const bytes = this.bytes.get(id)
      if (bytes !== undefined) {
        const record = decodeHeld(bytes)
        this.quota.remove(record)
        authored.push({ id, kind: record.kind, from: record.from })
        this.bytes.delete(id)
      }
      this.archived.add(id)
    }
    await this.init.persistence.saveTombstones?.(list)
    await this.init.persistence.saveArchivedAuthors?.(groupArchived(authored))
    await this.init.persistence.remove?.(list)
    return authored.length
  }

  /**
   * What a rekey removing the members of `peers` keeps (protocol/kept.ts):
   * the records held by those PeerIds, and those this peer archived (their
   * authors were remembered when archived).
   */
  async heldBy(peers: ReadonlySet<string>): Promise<KeptCandidate[]> {
    const held: KeptCandidate[] = []
    for (const record of this.records())
      if (peers.has(record.from)) held.push({ id: record.id, kind: record.kind, from: record.from })
    for (const group of (await this.init.persistence.loadArchivedAuthors?.()) ?? []) {
      if (!peers.has(group.from)) continue
      for (const id of group.ids) held.push({ id, kind: group.kind, from: group.from })
    }
    return held
  }

  get(id: string): Uint8Array | undefined {
    return this.bytes.get(id)
  }

  /** Add a record already decoded and verified (gossip validator, or our own). */
  addVerified(record: PlanRecord, bytes: Uint8Array, persist = true): boolean {
    if (this.closed || this.bytes.has(record.id) || this.archived.has(record.id)) return false
    const verdict = this.quota.admit(record)
    if (!verdict.kept) {
      this.refuse(record.id)
      this.init.log?.(`dropped a ${record.kind} by ${record.from}: over its author's quota`)
      return false
    }
    // a bind that joins a PeerId to its member's quota can push out several (quota.ts)
    const evictions =
      (verdict as { evictions?: string[] }).evictions ??
      (verdict.evicted !== undefined ? [verdict.evicted] : [])
    for (const evicted of evictions) {
      this.bytes.delete(evicted)
      this.refuse(evicted)
      this.init.persistence.remove?.([evicted]).catch((err: Error) => {
        this.init.log?.(`could not remove record ${evicted}: ${err.message}`)
      })
    }
    this.bytes.set(record.id, bytes)
    this.changes++
    if (persist) {
      this.init.persistence.save(record.id, bytes).catch((err: Error) => {
        this.init.log?.(`could not persist record ${record.id}: ${err.message}`)
      })
    }
    this.init.onRecord(record)
    return true
  }

  /**
   * Verify and add bytes from sync or storage. Never throws. `allow`, when
   * given, must accept the verified record (a forwarding node of a previous
   * epoch takes only the rekey and what vouches for it): else 'ignore'.
   */
  async add(
    bytes: Uint8Array,
    from: string,
    expected?: (id: string) => boolean,
    allow?: (record: PlanRecord) => boolean,
  ): Promise<Verdict> {
    const verdict = await this.verifyAndAdd(bytes, from, true, expected, allow)
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
    allow?: (record: PlanRecord) => boolean,
  ): Promise<Verdict> {
    // A record its author's quota has no room for is dropped before its
    // signature is checked: a flood offered by sync costs a parse, not an
    // Ed25519 check, per record. Unverified, its id is not remembered (a
    // forgery could name any id), so another session may offer it again.
    const early = this.overQuota(claimedKey(bytes), from, expected)
    if (early !== undefined) return early
    const decoded = await decodeRecordAsync(bytes, { room: this.init.room })
    if (!decoded.ok) {
      this.init.log?.(`dropped a record from ${from}: ${decoded.reason} (${decoded.detail})`)
      return 'reject'
    }
    return this.addChecked(decoded.record, bytes, from, persist, expected, allow)
  }

  /**
   * The verdict on a record whose author's quota has no room for it, before
   * any signature is checked; undefined when it has room (or is held).
   */
  private overQuota(
    claimed: QuotaKey | undefined,
    from: string,
    expected?: (id: string) => boolean,
  ): Verdict | undefined {
    if (claimed === undefined || this.has(claimed.id) || this.quota.allows(claimed))
      return undefined
    if (expected !== undefined && !expected(claimed.id)) {
      this.init.log?.(`dropped a record from ${from} that nobody asked for: ${claimed.id}`)
      return 'reject'
    }
    return 'ignore'
  }

  /** The checks every door makes on a verified record, then adds it. */
  private addChecked(
    record: WireRecord,
    bytes: Uint8Array,
    from: string,
    persist: boolean,
    expected?: (id: string) => boolean,
    allow?: (record: PlanRecord) => boolean,
  ): Verdict {
    if (expected !== undefined && !expected(record.id)) {
      this.init.log?.(`dropped a record from ${from} that nobody asked for: ${record.id}`)
      return 'reject'
    }
    if (!isPlanRecord(record)) {
      this.init.log?.(`dropped a presence beat offered as a plan record by ${from}`)
      return 'reject'
    }
    if (allow !== undefined && !allow(record)) return 'ignore'
    return this.addVerified(record, bytes, persist) ? 'accept' : 'ignore'
  }

  /**
   * Verify and add a batch of bytes from sync, as `add` would each, with their
   * checks run all at once by the store's decoder (`PlanStoreInit.decoder`:
   * worker threads in a Node peer). One verdict per record, in order.
   */
  async addMany(
    batch: readonly Uint8Array[],
    from: string,
    expected?: (id: string) => boolean,
    allow?: (record: PlanRecord) => boolean,
  ): Promise<Verdict[]> {
    const verdicts: Verdict[] = new Array<Verdict>(batch.length)
    const toCheck: number[] = []
    // each body parsed once: for its quota key now, for its fields once verified
    const bodies = batch.map(parseBody)
    batch.forEach((_, i) => {
      // over its author's quota: dropped before its signature is checked (as in add)
      const early = this.overQuota(claimedOf(bodies[i]), from, expected)
      if (early !== undefined) verdicts[i] = early
      else toCheck.push(i)
    })
    const checked = await this.decoder(
      toCheck.map((i) => batch[i] as Uint8Array),
      this.init.room,
    )
    toCheck.forEach((i, k) => {
      const bytes = batch[i] as Uint8Array
      const result = checked[k]
      if (result === undefined || !result.ok) {
        const why = result === undefined ? 'unchecked' : `${result.reason} (${result.detail})`
        this.init.log?.(`dropped a record from ${from}: ${why}`)
        verdicts[i] = 'reject'
        return
      }
      // its body is canonical JSON of the validated record; read through the
      // schema, it is that record with its fields in the order every other
      // door gives (gossip, our own): two peers' views stay alike to the byte
      verdicts[i] = this.addChecked(asRecord(bodies[i]), bytes, from, true, expected, allow)
      if (verdicts[i] === 'accept') {
        this.synced++
        this.syncedBytes += bytes.length
      }
    })
    return verdicts
  }

  private refuse(id: string): void {
    this.changes++
    this.refused.add(id)
    if (this.refused.size > MAX_REFUSED_IDS) {
      this.refused.delete(this.refused.values().next().value!)
    }
  }

  /** Decoded copies of every record held (already verified: no signature check again). */
  records(): PlanRecord[] {
    return [...this.bytes.values()].map(decodeHeld)
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

const PLAN_KINDS = new Set<string>(Object.keys(AUTHOR_QUOTA))

/** The id, kind and author a record's body claims, unverified; undefined when it names none. */
function claimedKey(bytes: Uint8Array): QuotaKey | undefined {
  return claimedOf(parseBody(bytes))
}

/** A record's body as JSON, unchecked; undefined when it is not JSON. */
function parseBody(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes.subarray(WIRE_HEADER_BYTES))) as unknown
  } catch {
    return undefined
  }
}

/** The id, kind and author a parsed body claims (claimedKey). */
function claimedOf(body: unknown): QuotaKey | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const { id, kind, from } = body as Record<string, unknown>
  if (typeof id !== 'string' || typeof from !== 'string' || typeof kind !== 'string')
    return undefined
  return PLAN_KINDS.has(kind) ? { id, kind: kind as QuotaKey['kind'], from } : undefined
}

/** A checked body as the schema reads it (the schema changes no value, only key order). */
function asRecord(body: unknown): WireRecord {
  const parsed = wireRecordSchema.safeParse(body)
  return (parsed.success ? parsed.data : body) as WireRecord
}

/** A held record's fields (its bytes were verified when they came in). */
function decodeHeld(bytes: Uint8Array): PlanRecord {
  return JSON.parse(new TextDecoder().decode(bytes.subarray(WIRE_HEADER_BYTES))) as PlanRecord
}
