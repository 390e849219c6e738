import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { claimDataDir, DataDirLockError, LOCK_FILE, MAX_DATA_DIR_SLOTS } from './data-dir-lock'

let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'murmuration-lock-'))
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

const alive = (pids: number[]) => (pid: number) => pids.includes(pid)

describe('claimDataDir', () => {
  it('takes the directory itself when free, and writes the pid in the lock', () => {
    const base = join(root, 'agent')
    const lock = claimDataDir(base, { pid: 11, isAlive: alive([]) })
    expect(lock).toMatchObject({ dir: base, slot: 1 })
    expect(readFileSync(join(base, LOCK_FILE), 'utf8')).toBe('11')
    lock.release()
    expect(existsSync(join(base, LOCK_FILE))).toBe(false)
    lock.release() // idempotent
  })

  it('a second live agent gets the next slot; freed slots are reused first', () => {
    const base = join(root, 'agent')
    const a = claimDataDir(base, { pid: 11, isAlive: alive([11, 12, 13]) })
    const b = claimDataDir(base, { pid: 12, isAlive: alive([11, 12, 13]) })
    expect(b).toMatchObject({ dir: `${base}.2`, slot: 2 })
    a.release()
    const c = claimDataDir(base, { pid: 13, isAlive: alive([12, 13]) })
    expect(c.dir).toBe(base)
  })

  it('takes over a lock whose process died', () => {
    const base = join(root, 'agent')
    mkdirSync(base)
    writeFileSync(join(base, LOCK_FILE), '999')
    const lock = claimDataDir(base, { pid: 11, isAlive: alive([11]) })
    expect(lock.dir).toBe(base)
    expect(readFileSync(join(base, LOCK_FILE), 'utf8')).toBe('11')
  })

  it('release leaves a lock another process took alone', () => {
    const base = join(root, 'agent')
    const lock = claimDataDir(base, { pid: 11, isAlive: alive([]) })
    writeFileSync(join(base, LOCK_FILE), '12')
    lock.release()
    expect(readFileSync(join(base, LOCK_FILE), 'utf8')).toBe('12')
  })

  it('gives up with a typed error when every slot is held', () => {
    const base = join(root, 'agent')
    for (let slot = 1; slot <= MAX_DATA_DIR_SLOTS; slot++) {
      const dir = slot === 1 ? base : `${base}.${slot}`
      mkdirSync(dir)
      writeFileSync(join(dir, LOCK_FILE), '5')
    }
    expect(() => claimDataDir(base, { pid: 11, isAlive: alive([5]) })).toThrow(DataDirLockError)
  })
})
