/**
 * A tab's call log in IndexedDB (idb-keyval): one database per tab
 * identity, one entry per call, so a reload (which keeps the tab's
 * identity) shows the calls made before it, and other tabs keep theirs.
 */
import { createStore, delMany, set, values, type UseStore } from 'idb-keyval'
import type { CallEntry, CallStore } from './call-log'

export function indexedDbCallStore(peerId: string): CallStore {
  const store: UseStore = createStore(`murmuration-calls-${peerId}`, 'calls')
  return {
    load: () => values<CallEntry>(store),
    save: (entry) => set(entry.id, entry, store),
    remove: (ids) => delMany([...ids], store),
  }
}
