/**
 * Removals in the simulator (PROTOCOL.md §0.1, since version 8): every sim
 * peer is a member of its own, admitted by a virtual owner; at random points
 * the owner removes a member with a rekey that keeps what one live replica
 * (the owner's peer) holds of it. The removed peer does not stop: it goes on
 * working and publishing, as a removed member that ignores its removal
 * would, and its records reach everyone (the simulator has no epochs: any
 * door is open). Every replica must still converge on one plan, and none
 * may count a record of a removed member that its removal did not keep.
 */
import type { DerivedPlan } from '../plan/derive'
import { keptIds } from '../protocol/kept'
import { deriveMemberKey, sealEpochSecret, type MemberKey } from '../protocol/member-key'
import { deriveMembership, nextRekey, type Membership } from '../protocol/membership'
import {
  newAdmit,
  newBind,
  newGoal,
  newRekey,
  type PlanRecord,
  type RekeyRecord,
} from '../protocol/records'
import type { PlanState } from '../plan/state'
import type { Rng } from './rng'
import { derived } from '../roles/room-view'
import { SIM_CLOCK_ORIGIN, type SimPeer, type Swarm } from './swarm'

/** The virtual owner's PeerId: it admits everyone, removes, and does no work. */
export const OWNER_PEER = '12D3KooWSimRoomOwner00000000000000000000000000000000'
/** Removals happen between this long after the first goal and this much later. */
export const REMOVE_FROM_MS = 4_000
export const REMOVE_WITHIN_MS = 60_000

export interface SimMembers {
  owner: MemberKey
  /** PeerId → its member */
  members: Map<string, MemberKey>
  /** the removals made so far */
  rekeys: RekeyRecord[]
}

/** A member key from a seed drawn by `rng` (deterministic per run). */
function memberKey(rng: Rng): MemberKey {
  return deriveMemberKey(Uint8Array.from({ length: 16 }, () => rng.int(0, 255)))
}

/** The virtual owner's member key, from the run's own member draws. */
export function simOwner(rng: Rng): MemberKey {
  return memberKey(rng)
}

/** Members for `peers`: the owner's bind and admits and each peer's bind, to publish at once. */
export function simMembers(
  owner: MemberKey,
  peers: readonly SimPeer[],
  room: string,
  rng: Rng,
  at: number,
): { members: SimMembers; records: PlanRecord[] } {
  const members = new Map(peers.map((peer) => [peer.peerId, memberKey(rng)]))
  const records: PlanRecord[] = [newBind(room, OWNER_PEER, owner)]
  peers.forEach((peer, n) => {
    const key = members.get(peer.peerId)!
    records.push(
      newAdmit(
        room,
        OWNER_PEER,
        { member: key.id, box: key.box, name: `Peer ${n}`, coOwner: false },
        at,
      ),
      newBind(room, peer.peerId, key),
    )
  })
  return { members: { owner, members, rekeys: [] }, records }
}

/** The room's membership as one replica holds it. */
export function membershipIn(plan: PlanState, room: string, owner: string): Membership {
  return deriveMembership(room, owner, plan.memberRecords())
}

/**
 * The owner removes `victim`, from what the replica `via` holds: the next
 * rekey of the chain it sees, keeping every record of the victim there.
 */
export function removalRecord(
  members: SimMembers,
  via: PlanState,
  room: string,
  victim: string,
  at: number,
): RekeyRecord {
  const m = membershipIn(via, room, members.owner.id)
  const peers = new Set([victim])
  const held = [...via.records()].filter((r) => r.from === victim)
  // no boxes: the simulator has no epochs to move to, only the rule to follow
  const { eph } = sealEpochSecret(room, nextRekey(m).epoch, new Uint8Array(16), [])
  const rekey = newRekey(
    room,
    OWNER_PEER,
    {
      ...nextRekey(m),
      removed: [members.members.get(victim)!.id],
      reason: 'remove',
      eph,
      boxes: [],
      kept: keptIds(held, peers),
    },
    at,
  )
  members.rekeys.push(rekey)
  return rekey
}

/**
 * What a replica must never show: a record of a removed member counted in
 * its plan (an accept, a proposal, a vote or a result that decides
 * something) that its removal's rekey did not keep.
 */
export function removalViolations(plan: DerivedPlan, membership: Membership): string[] {
  const out: string[] = []
  const check = (record: { id: string; from: string } | null | undefined, what: string) => {
    if (!record) return
    const at = membership.frozen.get(record.from)
    if (at === undefined) return
    if (!membership.rekeys[at - 1]!.kept.includes(record.id))
      out.push(`${what} ${record.id} by removed ${record.from} counts`)
  }
  for (const goal of plan.goals.values()) {
    check(goal.accept, 'accept')
    for (const proposal of goal.proposals) check(proposal, 'proposal')
    for (const votes of goal.votes.values()) for (const vote of votes) check(vote, 'vote')
  }
  for (const task of plan.tasks.values()) check(task.result, 'result')
  for (const goal of plan.goals.values())
    if (goal.depth === 0) check({ id: goal.id, from: goal.createdBy }, 'goal')
  return out
}

/**
 * Runs `sim` with `removals` removals at random points (the first
 * REMOVE_FROM_MS after the first goal, within REMOVE_WITHIN_MS), then until
 * `done`. A victim is a peer whose role keeps two others not removed, so the
 * plan can still finish. Returns whether it finished, and the check each
 * replica must pass at the end.
 */
export function runWithRemovals(
  sim: Swarm,
  owner: MemberKey,
  rng: Rng,
  submitAt: number,
  done: () => boolean,
): { completed: boolean; violations: (peer: SimPeer) => string[] } {
  const room = 'sim'
  const { members, records } = simMembers(owner, sim.peers, room, rng, SIM_CLOCK_ORIGIN)
  for (const record of records) sim.inject(sim.peers[0]!, record)
  const times = Array.from({ length: sim.options.removals ?? 0 }, () =>
    rng.int(submitAt + REMOVE_FROM_MS, submitAt + REMOVE_FROM_MS + REMOVE_WITHIN_MS),
  ).sort((a, b) => a - b)
  const removed = new Set<string>()
  const left = (role: string) =>
    sim.peers.filter((p) => p.role === role && !removed.has(p.peerId)).length
  const max = sim.options.maxVirtualMs
  for (const at of times) {
    if (sim.now >= max) break
    sim.runUntil(() => false, Math.min(at, max))
    const via = sim.alive().find((p) => p.role === 'observer') ?? rng.pick(sim.alive())
    const candidates = sim.peers.filter(
      (p) => p.role !== 'observer' && !removed.has(p.peerId) && left(p.role) >= 3,
    )
    if (candidates.length === 0) break
    const victim = rng.pick(candidates)
    removed.add(victim.peerId)
    sim.inject(via, removalRecord(members, via.state!.plan, room, victim.peerId, sim.local(via)))
    // and the removed member writes on: a goal, through its own links
    if (victim.state) {
      const goal = newGoal(room, victim.peerId, `After its removal (${at})`, sim.local(victim), 2)
      sim.inject(victim, goal)
    }
  }
  const completed = sim.runUntil(done, max)
  return {
    completed,
    violations: (peer) => {
      const membership = membershipIn(peer.state!.plan, room, owner.id)
      const out = removalViolations(derived(peer.state!), membership)
      for (const victim of removed)
        if (membership.isActive(members.members.get(victim)!.id))
          out.push(`${victim} was removed, yet is a member at ${peer.peerId}`)
      return out
    },
  }
}
