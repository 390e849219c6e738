/**
 * A person steering their goal in the simulator (issue 27, PROTOCOL.md
 * §5.12): the goal's author, from what its own tab has derived, now and
 * then approves a waiting split (late, and sometimes twice: a lost click
 * sent again), vetoes one with a note, sends a done leaf back with a note,
 * and pauses the goal for a while then resumes it. Its records travel like
 * any others (lost, duplicated, reordered), so the run checks that replicas
 * still converge on one tree and the plan still finishes.
 */
import { newRedo, newSteer, newVerdict, type PlanRecord } from '../protocol/records'
import type { DerivedPlan } from '../plan/derive'
import type { Rng } from './rng'

/** A person acts this often at most (virtual time): they read before they click. */
export const STEER_EVERY_MS = 4_000
/** Chances per look: approve a waiting split (else it waits longer), veto it instead, redo a leaf. */
const APPROVE_CHANCE = 0.5
const VETO_CHANCE = 0.25
const REDO_CHANCE = 0.15
const PAUSE_CHANCE = 0.1
/** A person vetoes a goal's split at most once and redoes at most this many leaves: the run must end. */
const REDOS_PER_RUN = 2

export interface SteerMemory {
  vetoed: Set<string>
  redos: number
  /** the root paused until this virtual time, or null */
  pausedUntil: Map<string, number>
}

export function steerMemory(): SteerMemory {
  return { vetoed: new Set(), redos: 0, pausedUntil: new Map() }
}

/** What the author of the roots in `plan` does now: records to publish from its tab. */
export function steerRecords(
  plan: DerivedPlan,
  author: string,
  room: string,
  at: number,
  rng: Rng,
  memory: SteerMemory,
): PlanRecord[] {
  const out: PlanRecord[] = []
  for (const goal of plan.goals.values()) {
    if (goal.createdBy !== author || goal.cancelled) continue
    if (goal.approval === 'waiting' && goal.accepted) {
      if (!memory.vetoed.has(goal.id) && rng.next() < VETO_CHANCE) {
        memory.vetoed.add(goal.id)
        const retire = [...goal.proposals.map((p) => p.id), ...goal.retired.map((p) => p.id)]
        out.push(
          newVerdict(
            room,
            author,
            {
              goal: goal.id,
              proposal: goal.accepted.id,
              approve: false,
              note: 'smaller steps',
              retire: [...new Set(retire)].slice(0, 32),
            },
            at,
          ),
        )
      } else if (rng.next() < APPROVE_CHANCE) {
        out.push(
          newVerdict(
            room,
            author,
            { goal: goal.id, proposal: goal.accepted.id, approve: true },
            at,
          ),
        )
      }
    }
    for (const slot of goal.slots) {
      const task = slot.execute
      if (!task || task.status !== 'done' || memory.redos >= REDOS_PER_RUN) continue
      if (rng.next() < REDO_CHANCE) {
        memory.redos++
        out.push(newRedo(room, author, task.id, 'cite sources', at))
      }
    }
    if (goal.depth !== 0) continue
    const until = memory.pausedUntil.get(goal.id)
    if (until === undefined && goal.status !== 'done' && rng.next() < PAUSE_CHANCE) {
      memory.pausedUntil.set(goal.id, at + rng.int(5_000, 20_000))
      out.push(newSteer(room, author, goal.id, true, goal.approvalMode, at))
    } else if (until !== undefined && at >= until && goal.paused) {
      out.push(newSteer(room, author, goal.id, false, goal.approvalMode, at))
    }
  }
  return out
}
