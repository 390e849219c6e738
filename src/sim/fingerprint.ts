/**
 * What a replica ended with, as content ids: the checks of a run (run.ts)
 * and the per-seed fingerprints `--fingerprints` prints.
 */
import { contentId } from '../protocol/hash'
import { projectTree } from '../plan/tree'
import { derived } from '../roles/room-view'
import type { SimPeer } from './swarm'

/** A replica's record set as one content id. */
export function replicaFingerprint(peer: SimPeer): string {
  const state = peer.state!
  return contentId([...state.plan.ids()].sort())
}

/**
 * Do these replicas (at least one) hold the same records? What equal
 * replicaFingerprints say, without sorting and hashing every id of every
 * replica at each check (asked every virtual second while they settle).
 */
export function sameRecords(peers: readonly SimPeer[]): boolean {
  const [first, ...others] = peers.map((peer) => peer.state!.plan)
  if (!first) return false
  const ids = [...first.ids()]
  return others.every((plan) => plan.size === first.size && ids.every((id) => plan.has(id)))
}

/** The tree a replica derives, as one content id. */
export function treeFingerprint(peer: SimPeer): string {
  const state = peer.state!
  return contentId(projectTree(derived(state), state.plan) as unknown as never)
}
