/**
 * What a scorer's capability-gap notice says (PROTOCOL.md §5.6, issue 56):
 * why nobody took the task, as the scorer sees the room. A notice used to
 * say "no live executor has the capability it needs" when two executors
 * offering it had both failed it, or when the only one's model was broken.
 *
 * - no live executor offers the capability: errorKind `none`, a real gap;
 * - every live executor offering it failed it: their latest error, with its
 *   kind;
 * - some offer it but none took it (beats `healthy: false`: a broken or
 *   rate-limited model, a paused budget): that, with an error one of them
 *   published if any (its kind), else `other`.
 *
 * Receivers count a notice whatever it says (authority.ts gapCounts); the
 * reason is for people (plan/why.ts). Pure.
 */
import type { Capability } from '../protocol/capabilities'
import type { FailureRecord } from '../protocol/records'
import type { TaskState } from '../plan/tasks'
import { derived } from './room-view'
import type { PeerState } from './peer'
import { fresh } from './view'

export const GAP_NOBODY =
  'nobody present claimed it: no live executor offers the capability it needs'
export const GAP_ALL_FAILED = 'every live executor that offers it failed it'
export const GAP_NONE_WORKING =
  'no live executor that offers it could take it (its model failing, or its spending paused)'

/** The capability a task needs: its leaf's, or writing for a roll-up. */
function needed(peer: PeerState, task: TaskState): Capability | null {
  if (task.type === 'rollup') return 'can_write_text'
  return derived(peer).leaves.get(task.id)?.slot.capability ?? null
}

/** Live executors offering `capability`, as this peer hears them. */
function offering(peer: PeerState, capability: Capability, now: number): string[] {
  const peers: string[] = []
  for (const [id, sighting] of peer.view.peers) {
    const presence = sighting.presence
    if (presence.role !== 'executor' || !fresh(sighting, now)) continue
    if (presence.capabilities.includes(capability)) peers.push(id)
  }
  return peers
}

/** The latest of these failures (highest epoch, then lowest id). */
function latest(failures: readonly FailureRecord[]): FailureRecord | undefined {
  return [...failures].sort((a, b) => b.epoch - a.epoch || (a.id < b.id ? -1 : 1))[0]
}

export function gapNotice(
  peer: PeerState,
  task: TaskState,
  now: number,
): Pick<FailureRecord, 'errorKind' | 'detail'> {
  const capability = needed(peer, task)
  const present = capability ? offering(peer, capability, now) : []
  if (present.length === 0) return { errorKind: 'none', detail: GAP_NOBODY }
  const failedIt = new Set(task.failures.map((failure) => failure.from))
  const last = latest(task.failures)
  if (last && present.every((id) => failedIt.has(id)))
    return { errorKind: last.errorKind, detail: `${GAP_ALL_FAILED}: ${last.detail}` }
  // what those executors said of their trouble elsewhere in the plan, if anything
  const theirs = new Set(present)
  const known = latest(
    [...peer.plan.records()].filter(
      (record): record is FailureRecord =>
        record.kind === 'failure' && theirs.has(record.from) && record.errorKind !== 'none',
    ),
  )
  return known
    ? { errorKind: known.errorKind, detail: `${GAP_NONE_WORKING}: ${known.detail}` }
    : { errorKind: 'other', detail: GAP_NONE_WORKING }
}
