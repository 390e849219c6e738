/**
 * A trivial RecordStore and validator for the network layer's own tests
 * (unit, e2e harness, Node test peer). Not the plan store: the record id is
 * the hex sha256 of the bytes, and a record is junk when it is empty, starts
 * with 0xff, or exceeds the cap.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '../bytes'
import type { RecordStore, Verdict } from '../types'

export const JUNK_MARKER = 0xff
export const TEST_RECORD_CAP = 64 * 1024

export function recordIdOf(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes))
}

export function isJunk(bytes: Uint8Array): boolean {
  return bytes.length === 0 || bytes[0] === JUNK_MARKER || bytes.length > TEST_RECORD_CAP
}

/** The test validator: junk is rejected, everything else accepted. */
export function testValidate(_topic: string, bytes: Uint8Array, _from: string): Verdict {
  return isJunk(bytes) ? 'reject' : 'accept'
}

export class MemoryStore implements RecordStore {
  readonly records = new Map<string, Uint8Array>()
  /** every add() that was rejected: who sent what */
  readonly rejected: Array<{ from: string; bytes: number }> = []
  /** listeners of newly accepted records */
  readonly onAdd = new Set<(id: string, bytes: Uint8Array, from: string) => void>()

  ids(): Iterable<string> {
    return this.records.keys()
  }

  get(id: string): Uint8Array | undefined {
    return this.records.get(id)
  }

  /** Adds a record we made or received by gossip (sync goes through add). */
  put(bytes: Uint8Array, from = 'self'): Verdict {
    if (isJunk(bytes)) {
      this.rejected.push({ from, bytes: bytes.length })
      return 'reject'
    }
    const id = recordIdOf(bytes)
    if (this.records.has(id)) return 'ignore'
    this.records.set(id, bytes)
    for (const cb of this.onAdd) cb(id, bytes, from)
    return 'accept'
  }

  /** ids dropped on purpose (see RecordStore.tombstones) */
  readonly archived = new Set<string>()

  tombstones(): Iterable<string> {
    return this.archived
  }

  async add(bytes: Uint8Array, from: string, expected?: (id: string) => boolean): Promise<Verdict> {
    if (!isJunk(bytes) && expected !== undefined && !expected(recordIdOf(bytes))) {
      this.rejected.push({ from, bytes: bytes.length })
      return 'reject'
    }
    return this.put(bytes, from)
  }
}
