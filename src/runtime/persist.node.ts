/**
 * Plan records of a headless agent in an append-only file: each record is a
 * 4-byte big-endian length followed by its signed bytes. A torn last write
 * (the process died mid-append) is ignored on load; every record is verified
 * again when loaded, so a damaged file cannot inject anything. Archived ids
 * are appended to `<path>.archived` (16 bytes each); the records file is not
 * rewritten, its archived records are skipped on load. Who wrote them goes
 * to `<path>.archived-by`, one JSON line per author and kind (a torn last
 * line is skipped).
 */
import { appendFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import {
  packIds,
  unpackIds,
  type ArchivedAuthors,
  type RecordPersistence,
  type SpendingPersistence,
} from './persist'

export function filePersistence(path: string): RecordPersistence {
  const saved = new Set<string>()
  let queue: Promise<void> = Promise.resolve()
  return {
    async load() {
      let data: Buffer
      try {
        data = await readFile(path)
      } catch {
        return []
      }
      const records: Uint8Array[] = []
      for (let at = 0; at + 4 <= data.length;) {
        const length = data.readUInt32BE(at)
        if (at + 4 + length > data.length) break
        records.push(new Uint8Array(data.subarray(at + 4, at + 4 + length)))
        at += 4 + length
      }
      return records
    },
    async loadTombstones() {
      try {
        return unpackIds(new Uint8Array(await readFile(`${path}.archived`)))
      } catch {
        return []
      }
    },
    async saveTombstones(ids) {
      queue = queue.then(async () => {
        await mkdir(dirname(path), { recursive: true })
        await appendFile(`${path}.archived`, packIds(ids))
      })
      await queue
    },
    async saveArchivedAuthors(groups) {
      const lines = groups.map((group) => `${JSON.stringify(group)}\n`).join('')
      queue = queue.then(async () => {
        await mkdir(dirname(path), { recursive: true })
        await appendFile(`${path}.archived-by`, lines)
      })
      await queue
    },
    async loadArchivedAuthors() {
      let text: string
      try {
        text = await readFile(`${path}.archived-by`, 'utf8')
      } catch {
        return []
      }
      const groups: ArchivedAuthors[] = []
      for (const line of text.split('\n')) {
        try {
          const group = JSON.parse(line) as ArchivedAuthors
          if (typeof group.from === 'string' && Array.isArray(group.ids)) groups.push(group)
        } catch {
          // a torn last line (the process died mid-append)
        }
      }
      return groups
    },
    async save(id, bytes) {
      if (saved.has(id)) return
      saved.add(id)
      const frame = Buffer.alloc(4 + bytes.length)
      frame.writeUInt32BE(bytes.length, 0)
      frame.set(bytes, 4)
      // appends are serialised so frames never interleave
      queue = queue.then(async () => {
        await mkdir(dirname(path), { recursive: true })
        await appendFile(path, frame)
      })
      await queue
    },
    // stopping waits for the appends still queued, so a restart loads them all
    async close() {
      await queue.catch(() => {})
    },
  }
}

/** What an agent spent, as JSON in its data directory; written whole, atomically (rename). */
export function fileSpending(path: string): SpendingPersistence {
  let queue: Promise<void> = Promise.resolve()
  return {
    async load() {
      try {
        return JSON.parse(await readFile(path, 'utf8')) as unknown
      } catch {
        return null
      }
    },
    async save(spent) {
      queue = queue.then(async () => {
        await mkdir(dirname(path), { recursive: true })
        await writeFile(`${path}.tmp`, JSON.stringify(spent))
        await rename(`${path}.tmp`, path)
      })
      await queue
    },
  }
}
