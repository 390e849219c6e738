/**
 * One agent per data directory, as one tab per identity slot: the data dir
 * holds a PeerId's key and its records file, and two processes sharing them
 * would be one peer twice on the wire (and two writers of one file).
 *
 * An agent takes `<dir>/agent.lock` (created exclusively, holding its pid).
 * When another live process holds it, the agent tries `<dir>.2`, `<dir>.3`,
 * … and takes the first free one: a second agent started with the same
 * options gets its own identity, as a duplicated tab does. A lock left by a
 * process that died (kill -9, power cut) is taken over.
 */
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const LOCK_FILE = 'agent.lock'

/**
 * Slots tried before giving up. Each slot is a running agent on this machine
 * in the same room and role; a hundred is far beyond what anyone runs by
 * hand, and bounds the loop if something is wrong with the file system.
 */
export const MAX_DATA_DIR_SLOTS = 100

export class DataDirLockError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'DataDirLockError'
  }
}

export interface DataDirLock {
  /** the directory this agent owns: `base` or `base.N` */
  dir: string
  /** the slot number: 1 for `base` itself */
  slot: number
  /** removes the lock file (idempotent; safe in an 'exit' handler) */
  release(): void
}

export interface ClaimDataDirInit {
  /** is this pid a live process? (injectable for tests; default: signal 0) */
  isAlive?: (pid: number) => boolean
  /** this process's pid (default process.pid) */
  pid?: number
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it exists but belongs to someone else
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The lock's holder, or undefined when the file is gone or unreadable. */
function holder(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** Tries to take one directory; true when this process now holds it. */
function tryLock(dir: string, pid: number, isAlive: (pid: number) => boolean): boolean {
  mkdirSync(dir, { recursive: true })
  const file = join(dir, LOCK_FILE)
  // two passes: the second after clearing a stale lock
  for (let pass = 0; pass < 2; pass++) {
    try {
      writeFileSync(file, String(pid), { flag: 'wx' })
      return true
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    const owner = holder(file)
    if (owner === pid) return true
    if (owner !== undefined && isAlive(owner)) return false
    try {
      unlinkSync(file) // stale: its process is gone
    } catch {
      // another agent cleared it first; the next pass races fairly with it
    }
  }
  return false
}

/** Takes the first free slot of `base` (see the module comment). */
export function claimDataDir(base: string, init: ClaimDataDirInit = {}): DataDirLock {
  const pid = init.pid ?? process.pid
  const isAlive = init.isAlive ?? pidAlive
  for (let slot = 1; slot <= MAX_DATA_DIR_SLOTS; slot++) {
    const dir = slot === 1 ? base : `${base}.${slot}`
    if (!tryLock(dir, pid, isAlive)) continue
    const file = join(dir, LOCK_FILE)
    let released = false
    return {
      dir,
      slot,
      release() {
        if (released) return
        released = true
        try {
          if (holder(file) === pid) unlinkSync(file)
        } catch {
          // already gone
        }
      },
    }
  }
  throw new DataDirLockError(
    `${base} and its ${MAX_DATA_DIR_SLOTS - 1} numbered siblings are all in use by running agents`,
  )
}
