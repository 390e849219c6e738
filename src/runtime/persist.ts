import type { PlanRecord } from '../protocol/records'

/**
 * Where a peer keeps the records it holds, so that a reload or a restart
 * loses nothing: IndexedDB in a tab (persist.browser.ts), a file for a
 * headless agent (persist.node.ts), memory in tests.
 */
export interface RecordPersistence {
  /** every record saved so far (signed bytes, as received) */
  load(): Promise<Uint8Array[]>
  /** save one record; idempotent by id */
  save(id: string, bytes: Uint8Array): Promise<void>
  /** drop records (archived); a storage without it keeps their bytes, ignored on load */
  remove?(ids: readonly string[]): Promise<void>
  /** ids archived so far (see RecordStore.tombstones) */
  loadTombstones?(): Promise<string[]>
  /** remember archived ids */
  saveTombstones?(ids: readonly string[]): Promise<void>
  /**
   * remember who wrote archived records (since protocol version 8): an owner
   * removing a member lists that member's archived records in its rekey's
   * `kept`, so they go on counting on peers that did not archive them
   */
  saveArchivedAuthors?(groups: readonly ArchivedAuthors[]): Promise<void>
  /** every group saved so far, read only when this peer removes someone */
  loadArchivedAuthors?(): Promise<ArchivedAuthors[]>
  close?(): Promise<void>
}

/** Archived records of one author and kind: their ids. */
export interface ArchivedAuthors {
  from: string
  kind: PlanRecord['kind']
  ids: string[]
}

/** Archived records, as `KeptCandidate`s, grouped by author and kind. */
export function groupArchived(
  records: readonly { id: string; kind: PlanRecord['kind']; from: string }[],
): ArchivedAuthors[] {
  const groups = new Map<string, ArchivedAuthors>()
  for (const { id, kind, from } of records) {
    const key = `${from} ${kind}`
    const group = groups.get(key) ?? { from, kind, ids: [] }
    group.ids.push(id)
    groups.set(key, group)
  }
  return [...groups.values()]
}

/**
 * Where a role keeps what it spent (src/runtime/budget.ts SavedSpending),
 * so a reload does not reset its caps: IndexedDB per tab identity, a file
 * in an agent's data directory. The value is opaque here.
 */
export interface SpendingPersistence {
  load(): Promise<unknown>
  save(spent: unknown): Promise<void>
}

export function memorySpending(): SpendingPersistence & { saved: unknown } {
  const store = {
    saved: null as unknown,
    async load() {
      return store.saved === null ? null : structuredClone(store.saved)
    },
    async save(spent: unknown) {
      store.saved = structuredClone(spent)
    },
  }
  return store
}

export function memoryPersistence(): RecordPersistence & {
  records: Map<string, Uint8Array>
  tombstones: Set<string>
  archivedAuthors: ArchivedAuthors[]
} {
  const records = new Map<string, Uint8Array>()
  const tombstones = new Set<string>()
  const archivedAuthors: ArchivedAuthors[] = []
  return {
    records,
    tombstones,
    archivedAuthors,
    async saveArchivedAuthors(groups) {
      archivedAuthors.push(...structuredClone(groups))
    },
    async loadArchivedAuthors() {
      return structuredClone(archivedAuthors)
    },
    async remove(ids) {
      for (const id of ids) records.delete(id)
    },
    async loadTombstones() {
      return [...tombstones]
    },
    async saveTombstones(ids) {
      for (const id of ids) tombstones.add(id)
    },
    async load() {
      return [...records.values()]
    },
    async save(id, bytes) {
      records.set(id, bytes)
    },
  }
}

/** Bytes of a packed id: record ids are 16 bytes (32 hex digits). */
const PACKED_ID_BYTES = 16
const ID_RE = /^[0-9a-f]{32}$/

/** Archived ids packed 16 bytes each (half their hex size); other ids are skipped. */
export function packIds(ids: readonly string[]): Uint8Array {
  const good = ids.filter((id) => ID_RE.test(id))
  const out = new Uint8Array(good.length * PACKED_ID_BYTES)
  good.forEach((id, i) => {
    for (let b = 0; b < PACKED_ID_BYTES; b++) {
      out[i * PACKED_ID_BYTES + b] = parseInt(id.slice(b * 2, b * 2 + 2), 16)
    }
  })
  return out
}

export function unpackIds(packed: Uint8Array): string[] {
  const ids: string[] = []
  for (let at = 0; at + PACKED_ID_BYTES <= packed.length; at += PACKED_ID_BYTES) {
    let id = ''
    for (let b = 0; b < PACKED_ID_BYTES; b++) {
      id += (packed[at + b] as number).toString(16).padStart(2, '0')
    }
    ids.push(id)
  }
  return ids
}
