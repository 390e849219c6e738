/**
 * Who is alive, as this peer hears it: the latest presence beat of every
 * other peer, stamped with the LOCAL time it arrived. Liveness and leases are
 * judged on this peer's own clock only, so a peer whose clock is minutes off
 * is judged exactly like any other.
 */
import { CAPABILITIES, type Capability } from '../protocol/capabilities'
import { rendezvousOrder } from '../protocol/hash'
import type { Presence, Role } from '../protocol/records'
import { presenceTtlMs } from '../protocol/rules'
import { mergeToolGroups, type ToolGroup } from '../protocol/tool-groups'

export interface PeerSighting {
  presence: Presence
  /** local time the latest beat arrived */
  heardAt: number
}

export interface SwarmView {
  peers: Map<string, PeerSighting>
  /** per task id: the holder whose lease we track and when we last saw it renewed (local time) */
  leases: Map<string, { holder: string; epoch: number; renewedAt: number }>
}

export function createView(): SwarmView {
  return { peers: new Map(), leases: new Map() }
}

/** Record a beat. Returns false for a stale or replayed one ((boot, seq) must grow). */
export function hearPresence(view: SwarmView, presence: Presence, now: number): boolean {
  const known = view.peers.get(presence.from)
  if (known) {
    const old = known.presence
    const newer = presence.boot > old.boot || (presence.boot === old.boot && presence.seq > old.seq)
    if (!newer) return false
  }
  view.peers.set(presence.from, { presence, heardAt: now })
  for (const task of presence.holding) {
    const lease = view.leases.get(task)
    if (lease && lease.holder === presence.from) lease.renewedAt = now
  }
  return true
}

/** Heard within three of the gaps its latest beat promised (`every`: 5 s for a holder, longer for an idle peer). */
export function fresh(sighting: PeerSighting, now: number): boolean {
  return now - sighting.heardAt <= presenceTtlMs(sighting.presence.every)
}

export function isAlive(view: SwarmView, peer: string, now: number): boolean {
  const sighting = view.peers.get(peer)
  return sighting !== undefined && fresh(sighting, now)
}

/** Live peers this peer knows of (itself not included). */
export function liveCount(view: SwarmView, now: number): number {
  let n = 0
  for (const sighting of view.peers.values()) if (fresh(sighting, now)) n++
  return n
}

export interface Eligibility {
  role: Role
  capability?: Capability
  /** only executors announcing this tool group (since version 8) */
  tool?: string
  exclude?: ReadonlySet<string>
  /**
   * only peers whose latest beat shows a free slot: a first choice that is
   * busy would not take the work for a while, and the next in line would
   * wait out a stagger and a claim window for nothing
   */
  free?: boolean
  /**
   * with `free`: the tasks each peer holds by the plan (its claims that
   * reached us, without a result or release yet). A beat may be up to
   * MIN_BEAT_GAP_MS old, or lost; claims and results arrive as they are
   * made. A peer's load is then what its beat showed besides the tasks it
   * held, plus what it holds now.
   */
  held?: ReadonlyMap<string, number>
}

/** A peer's load as `want` can best tell it (see Eligibility.held). */
function loadOf(presence: Presence, want: Eligibility, peer: string): number {
  if (!want.held) return presence.load
  return Math.max(0, presence.load - presence.holding.length) + (want.held.get(peer) ?? 0)
}

/** Live, healthy peers that could do a piece of work (this peer included when it qualifies). */
export function eligiblePeers(
  view: SwarmView,
  self: { peerId: string; eligible: boolean },
  want: Eligibility,
  now: number,
): string[] {
  const peers: string[] = []
  if (self.eligible && !want.exclude?.has(self.peerId)) peers.push(self.peerId)
  for (const [peer, sighting] of view.peers) {
    const presence = sighting.presence
    if (peer === self.peerId || !fresh(sighting, now)) continue
    if (presence.role !== want.role || !presence.healthy || want.exclude?.has(peer)) continue
    if (want.capability && !presence.capabilities.includes(want.capability)) continue
    if (want.tool && !presence.tools?.some((group) => group.name === want.tool)) continue
    if (want.free && loadOf(presence, want, peer) >= presence.capacity) continue
    peers.push(peer)
  }
  return peers
}

/** This peer's place in the rendezvous order for `subject` (0 = first choice); -1 if not eligible. */
export function rankFor(subject: string, peerId: string, eligible: readonly string[]): number {
  if (!eligible.includes(peerId)) return -1
  return rendezvousOrder(subject, eligible).indexOf(peerId)
}

/**
 * What the room's executors offer now: the union of the capabilities in the
 * latest beats of live executors (healthy or not: a paused or rate-limited
 * executor still offers them, and takes the work once it may), and `self`'s
 * own when it is an executor. In CAPABILITIES order. Decompose and classify
 * calls are told it (llm-contract.ts roomCapabilities), and the tree flags a
 * leaf that needs something missing from it (plan/tree.ts capabilityGap).
 */
export function offeredCapabilities(
  view: SwarmView,
  self: { role: Role; capabilities: readonly Capability[] },
  now: number,
  working = false,
): Capability[] {
  const offered = new Set<Capability>(self.role === 'executor' ? self.capabilities : [])
  for (const sighting of view.peers.values()) {
    if (sighting.presence.role !== 'executor' || !fresh(sighting, now)) continue
    if (working && !sighting.presence.healthy) continue
    for (const capability of sighting.presence.capabilities) offered.add(capability)
  }
  return CAPABILITIES.filter((capability) => offered.has(capability))
}

/**
 * Of what the room's live executors offer, what those that can work now
 * offer (their beats say `healthy`; `self` counts when `selfWorks`): a
 * leaf whose capability only executors that cannot work offer waits for
 * them to be fixed (plan/tree.ts noWorker).
 */
export function workingCapabilities(
  view: SwarmView,
  self: { role: Role; capabilities: readonly Capability[] },
  selfWorks: boolean,
  now: number,
): Capability[] {
  return offeredCapabilities(
    view,
    { role: self.role, capabilities: selfWorks ? self.capabilities : [] },
    now,
    true,
  )
}

/**
 * The tool groups the room's executors announce now (since version 8): the
 * latest beats of live executors, and `self`'s own when it is an executor,
 * merged by name (tool-groups.ts). Decompose and score calls are told them,
 * and the tree flags a leaf needing a group nobody announces.
 */
export function offeredToolGroups(
  view: SwarmView,
  self: { role: Role; tools?: readonly ToolGroup[] },
  now: number,
): ToolGroup[] {
  const lists: (readonly ToolGroup[])[] = self.role === 'executor' ? [self.tools ?? []] : []
  for (const sighting of view.peers.values()) {
    if (sighting.presence.role !== 'executor' || !fresh(sighting, now)) continue
    if (sighting.presence.tools) lists.push(sighting.presence.tools)
  }
  return mergeToolGroups(lists)
}
