/**
 * May this peer act yet: warmed up on what the swarm says, and acting for a
 * member the room counts.
 */
import { WARMUP_MS } from '../protocol/rules'
import type { PeerState } from './peer'
import { roomMembership } from './room-view'

/**
 * Has this peer heard the swarm long enough to act? Until then it claims,
 * proposes, scores and resumes nothing: its view of the plan and of who is
 * alive may be missing what its peers did meanwhile. Nor does a peer whose
 * own records count for nothing (PROTOCOL.md §0.1): its member not admitted
 * yet (the admit has not reached it), or removed. Its claims would not count
 * even in its own view, so it would take the same task again and again,
 * spending its person's key on work nobody takes.
 */
export function isWarm(peer: PeerState, now: number): boolean {
  return peer.warmFrom !== null && now - peer.warmFrom >= WARMUP_MS && !outOfRoom(peer)
}

/**
 * With a membership (version 7): this peer acts for no admitted member yet,
 * or for a removed one (its link reset, or removed), or a removal froze it.
 */
export function outOfRoom(peer: PeerState): boolean {
  const membership = roomMembership(peer)
  if (!membership) return false
  const self = peer.config.peerId
  const member = membership.memberOf(self)
  return member === undefined || !membership.isActive(member) || membership.frozen.has(self)
}
