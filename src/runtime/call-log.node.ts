/**
 * A headless agent's call log (--log-calls FILE.jsonl): every call appended
 * as one JSON line, in the order calls end. The file is the person's full
 * record: the in-memory log stays bounded, the file keeps what it drops.
 * A new run appends to it and starts with an empty log.
 */
import { appendFile, mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { CallStore } from './call-log'

export function jsonLinesCallStore(path: string): CallStore {
  // appends are serialised so lines never interleave
  let queue: Promise<void> = Promise.resolve()
  return {
    load: async () => [],
    async save(entry) {
      const line = queue.then(async () => {
        await mkdir(dirname(path), { recursive: true })
        await appendFile(path, `${JSON.stringify(entry)}\n`)
      })
      // a failed write is the caller's to report; the next one still runs
      queue = line.catch(() => {})
      await line
    },
    remove: async () => {},
  }
}
