/**
 * When a peer beats (publishes its presence), as a pure function.
 *
 * A beat carries what others need from this peer: that it is alive, its role
 * and load (for claim ranking) and the tasks it holds (its leases). Only the
 * leases need a steady pulse, and only while the peer holds something; the
 * rest needs a beat when it changes and a keepalive that says "still here".
 * So:
 *
 * - a holder beats every PRESENCE_INTERVAL_MS (its leases, LEASE_TIMEOUT_MS);
 * - an idle peer beats every keepaliveMs(peers it knows): the room as a
 *   whole sends about one keepalive a second, whatever its size;
 * - an idle peer in a quiet room (no plan record heard for
 *   QUIET_ROOM_AFTER_MS) beats every quietKeepaliveMs(peers), a minute at least;
 * - a change others act on (a new claim, health, capabilities, tool groups, model:
 *   beatKey) is beaten at once, at most every MIN_BEAT_GAP_MS;
 * - a newcomer is answered (so it learns who is here) at most every
 *   NEWCOMER_ANSWER_PER_PEER_MS × peers known: one beat answers every
 *   newcomer heard meanwhile.
 *
 * Each beat says `every`: the most it will wait before the next one. A
 * receiver takes the peer for gone after three such gaps unheard (view.ts).
 * A peer that lengthens its gap still keeps the promise of its last beat.
 *
 * `shouldBeat` decides from plain facts; `maybeBeat` gathers them from the
 * peer's state and publishes the beat.
 */
import {
  keepaliveMs,
  quietKeepaliveMs,
  MIN_BEAT_GAP_MS,
  NEWCOMER_ANSWER_PER_PEER_MS,
  PRESENCE_INTERVAL_MS,
} from '../protocol/rules'
import type { Presence } from '../protocol/records'
import type { ToolGroup } from '../protocol/tool-groups'
import { emit } from './emit'
import type { PeerState } from './peer'
import { roomQuiet } from './room-view'
import type { Effects } from './types'
import { liveCount } from './view'
import { heldTasks, usedSlots } from './work'

export interface BeatInput {
  now: number
  /** local time of this peer's last beat (-Infinity before the first) */
  lastBeatAt: number
  /** the `every` its last beat promised */
  lastEvery: number
  /** does the peer hold a task (a lease to renew)? */
  holding: boolean
  /** live peers it knows, itself not included */
  known: number
  /** has what a beat says changed since the last one (or was a beat asked for)? */
  changed: boolean
  /** has it heard a peer it did not know since its last beat? */
  newcomer: boolean
  /** is the room quiet (no plan record for QUIET_ROOM_AFTER_MS)? */
  quiet?: boolean
}

/** The gap this peer promises until its next beat. */
export function beatEvery(holding: boolean, known: number, quiet = false): number {
  if (holding) return PRESENCE_INTERVAL_MS
  return quiet ? quietKeepaliveMs(known + 1) : keepaliveMs(known + 1)
}

/** Should the peer beat now? */
export function shouldBeat(input: BeatInput): boolean {
  const since = input.now - input.lastBeatAt
  const every = beatEvery(input.holding, input.known, input.quiet)
  // keep the last beat's promise even when the gap has grown meanwhile
  if (since >= Math.min(every, input.lastEvery)) return true
  if (input.changed && since >= MIN_BEAT_GAP_MS) return true
  const answerGap = Math.max(MIN_BEAT_GAP_MS, (input.known + 1) * NEWCOMER_ANSWER_PER_PEER_MS)
  return input.newcomer && since >= answerGap
}

/**
 * What a beat says that others act on at once; two beats with the same key
 * need no change beat. Load is not part of it: the only ranking that looks
 * at free slots is for execute and roll-up tasks (view.ts), an executor's
 * slots are exactly the tasks it holds, and those others count from the
 * record set, where claims and results arrive as they are made. A task newly
 * held is beaten at once by the claim itself (beatDue); a task let go needs
 * no beat (its result or failure says so) and leaves the list at the next
 * beat.
 */
export function beatKey(parts: {
  healthy: boolean
  capabilities: readonly string[]
  /** the tool groups it announces (since version 8): a person turning a tool on or off */
  tools?: readonly unknown[]
  model: string
  offline: boolean
}): string {
  const key: unknown[] = [parts.healthy, parts.capabilities, parts.model, parts.offline]
  if (parts.tools?.length) key.push(parts.tools)
  return JSON.stringify(key)
}

/** What an executor announces of its tool groups: absent when none (and for every other role). */
function announcedTools(peer: PeerState): { tools?: ToolGroup[] } {
  const tools = peer.config.role === 'executor' ? (peer.config.tools ?? []) : []
  return tools.length > 0 ? { tools } : {}
}

function currentBeatKey(peer: PeerState): string {
  return beatKey({
    healthy: peer.healthy,
    capabilities: peer.config.role === 'executor' ? peer.config.capabilities : [],
    tools: announcedTools(peer).tools ?? [],
    model: peer.config.model,
    offline: peer.config.offline,
  })
}

/** Beat if shouldBeat says so. */
export function maybeBeat(peer: PeerState, fx: Effects, now: number): void {
  const holding = heldTasks(peer)
  const key = currentBeatKey(peer)
  const known = liveCount(peer.view, now)
  const quiet = holding.length === 0 && roomQuiet(peer, now)
  const due = shouldBeat({
    now,
    lastBeatAt: peer.lastBeatAt,
    lastEvery: peer.lastEvery,
    holding: holding.length > 0,
    known,
    changed: peer.beatDue || key !== peer.lastBeatKey,
    newcomer: peer.newcomerHeard,
    quiet,
  })
  if (!due) return
  const every = beatEvery(holding.length > 0, known, quiet)
  peer.seq++
  peer.lastBeatAt = now
  peer.lastEvery = every
  peer.lastBeatKey = key
  peer.beatDue = false
  peer.newcomerHeard = false
  emit<Presence>(peer, fx, {
    kind: 'presence',
    role: peer.config.role,
    capabilities: peer.config.role === 'executor' ? peer.config.capabilities : [],
    ...announcedTools(peer),
    holding,
    load: usedSlots(peer),
    capacity: peer.config.capacity,
    healthy: peer.healthy && peer.config.consent?.paused !== true,
    model: peer.config.model,
    offline: peer.config.offline,
    boot: peer.startedAt,
    seq: peer.seq,
    every,
  })
}
