/**
 * Plan records in IndexedDB (idb-keyval), one database per room. Tabs of the
 * same browser share it: records are content-addressed and only ever added,
 * so sharing is safe, and a new tab starts with everything its siblings hold.
 * Archiving deletes records and remembers their ids (packed, 16 bytes each)
 * in a second database, one entry per archive, and who wrote them in a
 * third (read only when this browser's owner removes someone).
 */
import { createStore, delMany, entries, get, set, values, type UseStore } from 'idb-keyval'
import {
  packIds,
  unpackIds,
  type ArchivedAuthors,
  type RecordPersistence,
  type SpendingPersistence,
} from './persist'

export function indexedDbPersistence(room: string): RecordPersistence {
  const store: UseStore = createStore(`murmuration-plan-${room}`, 'records')
  const archive: UseStore = createStore(`murmuration-archive-${room}`, 'tombstones')
  const authors: UseStore = createStore(`murmuration-archived-by-${room}`, 'authors')
  const entryKey = () => `${Date.now()}-${Math.random().toString(36).slice(2)}`
  return {
    async load() {
      const rows = await entries<string, Uint8Array>(store)
      return rows.map(([, bytes]) => bytes)
    },
    async save(id, bytes) {
      await set(id, bytes, store)
    },
    async remove(ids) {
      await delMany([...ids], store)
    },
    async loadTombstones() {
      return (await values<Uint8Array>(archive)).flatMap(unpackIds)
    },
    async saveTombstones(ids) {
      await set(entryKey(), packIds(ids), archive)
    },
    async saveArchivedAuthors(groups) {
      const packed = groups.map((g) => ({ from: g.from, kind: g.kind, ids: packIds(g.ids) }))
      await set(entryKey(), packed, authors)
    },
    async loadArchivedAuthors() {
      const entries =
        await values<{ from: string; kind: ArchivedAuthors['kind']; ids: Uint8Array }[]>(authors)
      return entries.flat().map((g) => ({ from: g.from, kind: g.kind, ids: unpackIds(g.ids) }))
    },
  }
}

/**
 * What a tab's role spent, in IndexedDB under the tab's PeerId (its identity
 * survives a reload, src/net/identity.browser.ts). Works in the role worker.
 */
export function indexedDbSpending(peerId: string): SpendingPersistence {
  const store: UseStore = createStore('murmuration-spending', 'spent')
  return {
    load: () => get(peerId, store),
    save: (spent) => set(peerId, spent, store),
  }
}
