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
  close?(): Promise<void>
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
} {
  const records = new Map<string, Uint8Array>()
  const tombstones = new Set<string>()
  return {
    records,
    tombstones,
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
