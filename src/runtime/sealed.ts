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
 *            the sync layer strikes its sender like any other junk)
 */
import type { RecordStore, Verdict } from '../net/types'
import { openRecord, sealRecord, type RoomKey } from '../protocol/room-key'

export class SealedStore implements RecordStore {
  constructor(
    private readonly room: RoomKey,
    private readonly inner: RecordStore,
    private readonly log?: (message: string) => void,
  ) {}

  ids(): Iterable<string> {
    return this.inner.ids()
  }

  get(id: string): Uint8Array | undefined {
    const plain = this.inner.get(id)
    return plain === undefined ? undefined : sealRecord(this.room, plain)
  }

  add(sealed: Uint8Array, from: string): Promise<Verdict> {
    const opened = openRecord(this.room, sealed)
    if (!opened.ok) {
      this.log?.(
        `dropped a synced record from ${from}: ${opened.reason} (not sealed for this room)`,
      )
      return Promise.resolve('reject')
    }
    return this.inner.add(opened.plain, from)
  }
}
