/**
 * Two plan stores syncing through their sealed stores over an in-memory
 * stream pair: the sync a room's peers run, without libp2p around it.
 */
import { streamPair } from '@libp2p/utils'
import type { NetLogger } from '../net/log'
import { Syncer } from '../net/sync'
import type { SyncReport } from '../net/types'
import type { RoomKey } from '../protocol/room-key'
import { memoryPersistence } from './persist'
import { SealedStore } from './sealed'
import { PlanStore } from './store'

const quiet: NetLogger = { debug() {}, info() {}, warn() {}, error() {} }

/** An empty in-memory plan store of `room`. */
export function memoryStore(room: RoomKey): PlanStore {
  return new PlanStore({ room: room.id, persistence: memoryPersistence(), onRecord: () => {} })
}

/** One sync session, `a` dialling `b`; both sides' reports (a's first). */
export async function syncOnce(
  room: RoomKey,
  a: PlanStore,
  b: PlanStore,
): Promise<[SyncReport, SyncReport]> {
  const syncer = (s: PlanStore) =>
    new Syncer({
      room: room.id,
      store: new SealedStore(room, s),
      logger: quiet,
      signal: new AbortController().signal,
    })
  const [outbound, inbound] = await streamPair()
  const theirs = syncer(b).session(inbound, 'a', false)
  const mine = await syncer(a).session(outbound, 'b', true)
  return [mine, await theirs]
}
