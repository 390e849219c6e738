/**
 * The seam between the room's encryption and the network layer. The network
 * (gossip, sync) moves only sealed bytes; the plan store keeps signed
 * records in the clear (they never leave this peer unsealed). This module
 * turns one into the other at the edge, so the net layer and the sync
 * protocol need to know nothing about room keys:
 *
 *   gossip:  sealFor/openFrom around publish and the topic validator
 *   sync:    SealedStore wraps the plan store's RecordStore: `get` seals,
 *            `add` opens (a record not sealed for this room is rejected, and
 *            the sync layer strikes its sender like any other junk); the
 *            rest (tombstones, `expected`, batches) passes through, so sync
 *            reconciles archived and refused ids and refuses a record
 *            nobody asked for (PROTOCOL.md §4.1, §7.3)
 */
import type { RecordStore, Verdict } from '../net/types'
import { openRecord, sealRecord, type RecordKey } from '../protocol/room-key'

export class SealedStore implements RecordStore {
  constructor(
    private readonly room: RecordKey,
    private readonly inner: RecordStore,
    private readonly log?: (message: string) => void,
  ) {}

  ids(): Iterable<string> {
    return this.inner.ids()
  }

  tombstones(): Iterable<string> {
    return this.inner.tombstones?.() ?? []
  }

  has(id: string): boolean {
    return this.inner.has ? this.inner.has(id) : this.inner.get(id) !== undefined
  }

  revision(): number | undefined {
    return this.inner.revision?.()
  }

  get(id: string): Uint8Array | undefined {
    const plain = this.inner.get(id)
    return plain === undefined ? undefined : sealRecord(this.room, plain)
  }

  add(sealed: Uint8Array, from: string, expected?: (id: string) => boolean): Promise<Verdict> {
    const plain = this.open(sealed, from)
    return plain === undefined ? Promise.resolve('reject') : this.inner.add(plain, from, expected)
  }

  async addMany(
    batch: readonly Uint8Array[],
    from: string,
    expected?: (id: string) => boolean,
  ): Promise<Verdict[]> {
    const plain = batch.map((sealed) => this.open(sealed, from))
    const opened = plain.filter((p): p is Uint8Array => p !== undefined)
    const inner = this.inner.addMany
      ? await this.inner.addMany(opened, from, expected)
      : await Promise.all(opened.map((p) => this.inner.add(p, from, expected)))
    let k = 0
    return plain.map((p) => (p === undefined ? 'reject' : (inner[k++] ?? 'reject')))
  }

  private open(sealed: Uint8Array, from: string): Uint8Array | undefined {
    const opened = openRecord(this.room, sealed)
    if (opened.ok) return opened.plain
    this.log?.(`dropped a synced record from ${from}: ${opened.reason} (not sealed for this room)`)
    return undefined
  }
}
