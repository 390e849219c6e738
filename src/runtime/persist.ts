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
  close?(): Promise<void>
}

export function memoryPersistence(): RecordPersistence & { records: Map<string, Uint8Array> } {
  const records = new Map<string, Uint8Array>()
  return {
    records,
    async load() {
      return [...records.values()]
    },
    async save(id, bytes) {
      records.set(id, bytes)
    },
  }
}
