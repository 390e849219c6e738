/**
 * Steering records from anyone but the goal's author (with a membership:
 * any PeerId of the author's member) count for nothing (plan/steering.ts):
 * the derivation ignores them. This says so once, as an
 * event the runtime logs, when such a record arrives and its goal is known.
 */
import type { PlanRecord } from '../protocol/records'
import type { PeerEvent } from './types'
import { goalAuthors } from '../plan/authority'
import { derived, roomMembership } from './room-view'
import type { PeerState } from './peer'

/** The author whose steering of `record`'s goal counts, or null while its goal is unknown. */
function authorOf(peer: PeerState, record: PlanRecord): string | null {
  if (record.kind === 'steer') return peer.plan.roots.get(record.goal)?.from ?? null
  if (record.kind === 'verdict') return derived(peer).goals.get(record.goal)?.createdBy ?? null
  if (record.kind !== 'redo') return null
  for (const { goal, slot } of derived(peer).leaves.values()) {
    if (slot.execute?.id === record.task || slot.superseded.some((s) => s.task.id === record.task))
      return goal.createdBy
  }
  return null
}

/** An event when `record` is steering by someone who does not act for its goal's author. */
export function ignoredSteering(peer: PeerState, record: PlanRecord): PeerEvent | null {
  if (record.kind !== 'steer' && record.kind !== 'verdict' && record.kind !== 'redo') return null
  const author = authorOf(peer, record)
  if (author === null || goalAuthors(roomMembership(peer)).actsFor(record.from, author)) return null
  return { type: 'steering-ignored', kind: record.kind, from: record.from }
}
