/**
 * Plan records in IndexedDB (idb-keyval), one database per room. Tabs of the
 * same browser share it: records are content-addressed and only ever added,
 * so sharing is safe, and a new tab starts with everything its siblings hold.
 */
import { createStore, entries, set, type UseStore } from 'idb-keyval'
import type { RecordPersistence } from './persist'

export function indexedDbPersistence(room: string): RecordPersistence {
  const store: UseStore = createStore(`murmuration-plan-${room}`, 'records')
  return {
    async load() {
      const rows = await entries<string, Uint8Array>(store)
      return rows.map(([, bytes]) => bytes)
    },
    async save(id, bytes) {
      await set(id, bytes, store)
    },
  }
}
