/**
 * A flooding member for the simulator: a peer that holds the room's secret
 * and publishes as fast as it likes.
 *
 * - Goals, half of them stamped with the real time and half backdated a
 *   minute apart, each round further into the past (a liar that spreads its
 *   goals over past minutes to pass the rate rule and to take the place of
 *   its own earlier goals). The limits of src/plan/goal-limits.ts must keep
 *   what it costs the honest peers bounded.
 * - FLOOD_RECORDS valid records that count for nothing (cancels of goals it
 *   does not own), gossiped through one peer and also handed by a second
 *   PeerId of the member, through sync, to another. The author quota
 *   (src/protocol/quota.ts) must keep every peer's store within
 *   AUTHOR_QUOTA.cancel of them, and every peer the same ones.
 */
import { contentId } from '../protocol/hash'
import { AUTHOR_QUOTA, MAX_OPEN_GOALS_PER_AUTHOR, GOAL_RATE_WINDOW_MS } from '../protocol/limits'
import { newCancel, newGoal, type CancelRecord, type GoalRecord } from '../protocol/records'
import type { DerivedPlan } from '../plan/derive'
import type { PlanState } from '../plan/state'

export const FLOODER_PEER = '12D3KooWF1ooderMember1111111111111111111111111111111'
/** Goals per flood round (one round per ATTACK_EVERY_MS): hundreds an hour. */
export const FLOOD_GOALS_PER_ROUND = 10

/** Cancels the flooder sends in all, FLOOD_RECORDS_PER_ROUND a round. */
export const FLOOD_RECORDS = 2_000
export const FLOOD_RECORDS_PER_ROUND = 500

/** One round's cancels of goals the flooder does not own (none once FLOOD_RECORDS are out). */
export function floodCancels(room: string, at: number, round: number): CancelRecord[] {
  const first = round * FLOOD_RECORDS_PER_ROUND
  const count = Math.max(0, Math.min(FLOOD_RECORDS_PER_ROUND, FLOOD_RECORDS - first))
  return Array.from({ length: count }, (_, i) =>
    newCancel(room, FLOODER_PEER, contentId(['not its goal', first + i]), at),
  )
}

/** The flooder's cancels a replica holds. */
export function floodCancelsHeld(state: PlanState): number {
  let held = 0
  for (const record of state.records()) {
    if (record.kind === 'cancel' && record.from === FLOODER_PEER) held++
  }
  return held
}

/** What the author quota must never let a replica hold. */
export function quotaViolations(state: PlanState): string[] {
  const held = floodCancelsHeld(state)
  return held > AUTHOR_QUOTA.cancel
    ? [`${held} flood cancels stored (quota ${AUTHOR_QUOTA.cancel})`]
    : []
}

/** One round of the flood: half truthful, half backdated past every earlier round. */
export function floodGoals(room: string, at: number, round: number): GoalRecord[] {
  return Array.from({ length: FLOOD_GOALS_PER_ROUND }, (_, i) => {
    const backdated = i % 2 === 1
    const createdAt = backdated
      ? Math.max(0, at - (round * FLOOD_GOALS_PER_ROUND + i + 1) * GOAL_RATE_WINDOW_MS)
      : at
    return newGoal(room, FLOODER_PEER, `Flood goal ${round}.${i}`, createdAt, 3)
  })
}

/** The flooder's root goals that count and are still open, in a replica's derived plan. */
export function liveFloodGoals(plan: DerivedPlan): string[] {
  return plan.roots.filter((id) => {
    const goal = plan.goals.get(id)!
    return (
      goal.createdBy === FLOODER_PEER &&
      goal.status !== 'done' &&
      goal.status !== 'failed' &&
      goal.status !== 'cancelled'
    )
  })
}

/** What the limits must never let the flooder have, in a replica's derived plan. */
export function floodViolations(plan: DerivedPlan): string[] {
  const violations: string[] = []
  const live = liveFloodGoals(plan)
  if (live.length > MAX_OPEN_GOALS_PER_AUTHOR)
    violations.push(`${live.length} live flood goals (at most ${MAX_OPEN_GOALS_PER_AUTHOR})`)
  for (const id of plan.held) {
    if (plan.goals.has(id)) violations.push(`held goal ${id} derived`)
  }
  return violations
}

/** Flood goals some honest peer spent an LLM call on (a proposal or a failure to decompose). */
export function floodGoalsWorked(state: PlanState): number {
  let worked = 0
  for (const root of state.roots.values()) {
    if (root.from !== FLOODER_PEER) continue
    const records = state.goalRecords(root.id)
    if (records.proposals.length > 0 || state.failures(root.id).length > 0) worked++
  }
  return worked
}
