/**
 * A room's member data for a headless agent: `members-<stable id>.json` in
 * its data directory, written whole and atomically (rename), merged with
 * what is on disk at each save (an agent is one process per data directory:
 * data-dir-lock.ts).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import {
  cleanSaved,
  mergeSaved,
  type MembersPersistence,
  type SavedMembers,
} from './members-persist'

export function fileMembers(path: string): MembersPersistence {
  let queue: Promise<void> = Promise.resolve()
  const load = async (): Promise<SavedMembers> => {
    try {
      return cleanSaved(JSON.parse(await readFile(path, 'utf8')))
    } catch {
      return cleanSaved(null)
    }
  }
  const save = (more: Partial<SavedMembers>) => {
    queue = queue.then(async () => {
      const next = mergeSaved(await load(), more)
      await mkdir(dirname(path), { recursive: true })
      await writeFile(`${path}.tmp`, JSON.stringify(next))
      await rename(`${path}.tmp`, path)
    })
    return queue
  }
  return {
    load,
    saveEpoch: (epoch) => save({ epochs: [epoch] }),
    saveInvite: (invite) => save({ invites: [invite] }),
  }
}
