/**
 * GossipSub topics. Fixed per room and subscribed by every role from the
 * start: a per-goal or per-node topic would lose every message published
 * before a peer finished subscribing (GossipSub replays nothing).
 */
export interface RoomTopics {
  /** every plan record: goals, proposals, scores, claims, accepts, nodes, results, failures, cancels */
  plan: string
  /** presence beats: who is alive, with which role, and the leases it renews */
  presence: string
}

/** `room` is the room's public id (room-key.ts), never its secret. */
export function roomTopics(room: string): RoomTopics {
  return {
    plan: `murmuration/8/${room}/plan`,
    presence: `murmuration/8/${room}/presence`,
  }
}
