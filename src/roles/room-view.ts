/**
 * The room as this peer sees it, derived from what it heard: the plan (from
 * the records that count under the room's membership), what the room's live
 * executors offer (from their beats), and whether the room has gone quiet.
 * Roles read these; the runtime reads them for its cadence and its screens.
 */
import { quietRoomAfterMs } from '../protocol/rules'
import { derivePlan, type DerivedPlan } from '../plan/derive'
import { deriveMembership, type Membership } from '../protocol/membership'
import { planOver } from '../plan/archive'
import type { Capability } from '../protocol/capabilities'
import type { ToolGroup } from '../protocol/tool-groups'
import { offeredCapabilities, offeredToolGroups, workingCapabilities } from './view'
import type { PeerState } from './peer'

/** What the live executors of the room offer now, as this peer hears them (view.ts). */
export function roomCapabilities(peer: PeerState, now: number): Capability[] {
  return offeredCapabilities(peer.view, peer.config, now)
}

/** Of those, what the executors that can work now offer (healthy beats; this peer if it works). */
export function workingRoomCapabilities(peer: PeerState, now: number): Capability[] {
  const works = peer.healthy && peer.config.consent?.paused !== true
  return workingCapabilities(peer.view, peer.config, works, now)
}

/** The tool groups the room's live executors announce (view.ts), as a task's `roomTools`: absent when none. */
export function roomTools(peer: PeerState, now: number): { roomTools?: ToolGroup[] } {
  const groups = offeredToolGroups(peer.view, peer.config, now)
  return groups.length > 0 ? { roomTools: groups } : {}
}

export function derived(peer: PeerState): DerivedPlan {
  if (!peer.derivedCache || peer.derivedCache.version !== peer.plan.version) {
    // with an owner (version 7), only admitted members' records count, limits per member
    const membership = roomMembership(peer)
    peer.derivedCache = derivePlan(peer.plan, membership ? { membership } : {})
  }
  return peer.derivedCache
}

/** The room's membership when this peer knows its owner (version 7); else none. */
export function roomMembership(peer: PeerState): Membership | undefined {
  return peer.config.owner ? membershipOf(peer, peer.config.owner) : undefined
}

/** The room's membership, derived again only when a member record arrived (one object meanwhile). */
const memberships = new WeakMap<PeerState, { count: number; membership: Membership }>()
function membershipOf(peer: PeerState, owner: string): Membership {
  const records = peer.plan.memberRecords()
  const held = memberships.get(peer)
  if (held?.count === records.length) return held.membership
  const membership = deriveMembership(peer.config.room, owner, records)
  memberships.set(peer, { count: records.length, membership })
  return membership
}

/**
 * Is the room quiet for this peer: no plan record heard for
 * quietRoomAfterMs (shorter once the plan is over)? Its beats and ticks slow
 * down then (presence.ts, runtime/cadence.ts).
 */
export function roomQuiet(peer: PeerState, now: number): boolean {
  return now - peer.lastPlanAt >= quietRoomAfterMs(planOver(derived(peer)))
}
