/**
 * When a peer's core driver (driver.ts) looks at the clock, and when what a
 * peer hears is worth re-drawing: pure functions of the core's state and the
 * time, so the pace can be tested without timers.
 */
import { presenceTtlMs } from '../protocol/rules'
import type { PeerState } from '../roles/index'

/**
 * How often the core looks at the clock. Rules are written so that a late
 * tick only delays an outcome; 250 ms keeps claim windows and staggers close
 * to their nominal values in a foreground tab or a worker.
 */
export const TICK_MS = 250
/**
 * The tick of a quiet core: nothing in flight, nothing held, and no input but
 * ticks and presence beats for QUIET_AFTER_MS. Nothing then waits on a
 * claim window or a stagger (those follow a plan record, which makes the
 * core busy again at once); what remains is keepalive beats (gaps of 5 s
 * and more, with a 1 s margin in presenceTtlMs) and others' leases and
 * deadlines (20 s and more), which a tick up to a second late only delays.
 * A hidden tab's timers fire at most once a second anyway.
 */
export const QUIET_TICK_MS = 1_000
/** How long after the last input that is not a tick or a beat the core is taken for quiet. */
export const QUIET_AFTER_MS = 5_000
/**
 * The tick of a quiet core in a quiet room (roles/room-view.ts roomQuiet): its own
 * keepalives are a minute apart then, and others' keepalives live 181 s, so a
 * tick 15 s late delays nothing anyone sees but the takeover of a lease
 * whose holder died in a room quiet for a minute (by that much). Each tick
 * wakes the tab's worker, and Firefox collects its garbage after each wake
 * (about 5 ms): at 5 s that was most of the worker's 0.1% of a core in an
 * idle Firefox tab (bench:idle). The first record makes the core busy, and
 * the tick fast, at once.
 */
export const QUIET_ROOM_TICK_MS = 15_000

/**
 * The delay to the next tick: tickMs while the core has calls in flight or
 * work held, or had an input other than a tick or a beat in the last
 * QUIET_AFTER_MS; quietTickMs (never shorter) once it is quiet; and
 * QUIET_ROOM_TICK_MS (never shorter) once its room is quiet too (roles/room-view.ts
 * roomQuiet: no plan record for a minute, or for OVER_ROOM_AFTER_MS once the
 * plan is over).
 */
export function tickDelay(state: {
  busy: boolean
  sinceInputMs: number
  /** the room is quiet (roles/room-view.ts roomQuiet); default false */
  roomQuiet?: boolean
  tickMs: number
  quietTickMs: number
}): number {
  const quiet = !state.busy && state.sinceInputMs >= QUIET_AFTER_MS
  if (!quiet) return state.tickMs
  const slow = Math.max(state.tickMs, state.quietTickMs)
  return state.roomQuiet === true ? Math.max(slow, QUIET_ROOM_TICK_MS) : slow
}

/**
 * Who is alive and what they said that the roster shows (not when each was
 * last heard): a peer that joins, leaves or changes refreshes the views,
 * while keepalive beats that change nothing cost the UI nothing.
 */
export function rosterKey(peer: PeerState, now: number): string {
  const parts: string[] = []
  for (const { presence: p, heardAt } of peer.view.peers.values()) {
    if (now - heardAt > presenceTtlMs(p.every)) continue
    parts.push(
      [
        p.from,
        p.role,
        p.healthy,
        p.model,
        p.offline,
        p.capabilities.join(','),
        p.load,
        p.capacity,
        // what it holds: other tabs show those leaves as being written
        p.holding.join(','),
        // the tool groups its person turned on (issue 57): the roster lists them
        p.tools ? JSON.stringify(p.tools) : '',
      ].join('/'),
    )
  }
  return parts.sort().join('|')
}
