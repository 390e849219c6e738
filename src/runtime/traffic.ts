/**
 * This peer's traffic at the protocol level (TrafficStats): the room's
 * network counts gossip published and received as it goes (room-node.ts, one
 * count kept across epochs); the plan store counts what sync brought.
 */
import type { PlanStore } from './store'
import type { TrafficStats } from './types'

/** the counts room-node.ts adds to, all zero */
export function emptyTraffic(): TrafficStats {
  return {
    published: 0,
    publishedBytes: 0,
    received: 0,
    receivedBytes: 0,
    synced: 0,
    syncedBytes: 0,
  }
}

/** a copy of the gossip counts with the store's sync counts */
export function trafficNow(
  gossip: TrafficStats,
  store: Pick<PlanStore, 'synced' | 'syncedBytes'>,
): TrafficStats {
  return { ...gossip, synced: store.synced, syncedBytes: store.syncedBytes }
}
