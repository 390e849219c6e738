/**
 * A hostile member for the simulator: a peer that holds the room's secret
 * (its records are sealed and signed) and uses it to attack the plan with
 * every trick the rules of src/plan/authority.ts must defeat: cancelling
 * others' goals, failing tasks with capability gaps at high epochs, jumping
 * epochs to own tasks, and taking over finished tasks to replace their
 * results (the final plan included). It does no honest work and submits no
 * goals (that is item 3's limits, not these rules).
 */
import type { DerivedPlan } from '../plan/derive'
import { stamp, type Draft, type PlanRecord } from '../protocol/records'
import type { TaskState } from '../plan/tasks'

export const HOSTILE_PEER = '12D3KooWHostileMember0000000000000000000000000000000'
/** How often the hostile member strikes, in virtual time: many times during a plan. */
export const ATTACK_EVERY_MS = 7_000
/** The epoch it jumps to: far past anything honest. */
const JUMP_EPOCH = 999

const usage = { provider: 'sim', model: 'hostile', inputTokens: 0, outputTokens: 0, offline: true }

function record<R extends PlanRecord>(
  draft: Omit<R, 'id' | 'v' | 'from' | 'room'>,
  room: string,
): R {
  return stamp<R>({ ...draft, from: HOSTILE_PEER, room } as Draft<R>)
}

function claimOf(task: TaskState, epoch: number, room: string, at: number): PlanRecord {
  return record(
    {
      kind: 'claim',
      task: task.id,
      taskType: task.type,
      subject: task.subject,
      epoch,
      at,
    } as never,
    room,
  )
}

function outputOf(task: TaskState, epoch: number, room: string, at: number): PlanRecord {
  return record(
    {
      kind: 'result',
      task: task.id,
      epoch,
      output: `Forged by the hostile member (${at})`,
      usage,
    } as never,
    room,
  )
}

/** One round of attacks against what the hostile member sees of the plan now. */
export function attackRecords(plan: DerivedPlan, room: string, at: number): PlanRecord[] {
  const out: PlanRecord[] = []
  for (const goal of plan.goals.values()) {
    // a takeover of the decide task, one step up, to swap the accepted split once it is
    // accepted (a takeover of a task still in progress only delays it until the lease
    // runs out, a gap the rules do not close: see THREAT_MODEL.md)
    const loser = goal.proposals.find(
      (p) => p.id !== goal.accepted?.id && (goal.votes.get(p.id)?.length ?? 0) >= 2,
    )
    if (goal.accept && loser) {
      const epoch = goal.decide.epoch + 1
      out.push(
        claimOf(goal.decide, epoch, room, at),
        record(
          {
            kind: 'accept',
            goal: goal.id,
            proposal: loser.id,
            basis: 'deadline',
            votes: goal.votes.get(loser.id)!.map((v) => v.id),
            epoch,
          } as never,
          room,
        ),
      )
    }
    if (goal.parent === null) {
      out.push(record({ kind: 'cancel', goal: goal.id, reason: 'hostile', at } as never, room))
    }
  }
  for (const task of plan.tasks.values()) {
    // a capability gap far ahead, with its own re-announce
    out.push(
      record({ kind: 'reannounce', task: task.id, epoch: JUMP_EPOCH, at } as never, room),
      record(
        {
          kind: 'failure',
          subject: task.id,
          stage: 'capability-gap',
          epoch: JUMP_EPOCH,
          index: -1,
          detail: 'hostile',
          usage: null,
        } as never,
        room,
      ),
    )
    // a jump to a far epoch, and work "done" in it
    out.push(claimOf(task, JUMP_EPOCH, room, at))
    if (task.type !== 'decide') out.push(outputOf(task, JUMP_EPOCH, room, at))
    // a takeover of a finished task, one step up, to replace its result
    if (task.result) {
      out.push(claimOf(task, task.epoch + 1, room, at), outputOf(task, task.epoch + 1, room, at))
    }
  }
  return out
}

/** What the hostile member must never have achieved, in a replica's derived plan. */
export function hostileViolations(plan: DerivedPlan): string[] {
  const violations: string[] = []
  for (const goal of plan.goals.values()) {
    if (goal.cancelled) violations.push(`goal ${goal.id} cancelled by the hostile member`)
    if (goal.accept?.from === HOSTILE_PEER) violations.push(`goal ${goal.id}: split swapped`)
  }
  for (const task of plan.tasks.values()) {
    // (a finished decide task it took over is harmless: the earliest accept stands, checked above)
    if (task.type !== 'decide' && task.holder?.from === HOSTILE_PEER) {
      violations.push(`task ${task.id} held by the hostile member`)
    }
    if (task.result?.from === HOSTILE_PEER) violations.push(`task ${task.id} has a forged result`)
    if (task.gap?.from === HOSTILE_PEER) violations.push(`task ${task.id} failed by a forged gap`)
  }
  return violations
}
