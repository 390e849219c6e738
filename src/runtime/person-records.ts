/**
 * What this peer's person writes into the plan: a root goal, its
 * cancellation, and steering (settings, a split's verdict, a leaf sent back).
 * Each is checked as every receiver would check it and against the limits
 * per author before it is published; each call resolves once it is sent.
 */
import { DEFAULT_MAX_DEPTH } from '../protocol/limits'
import type { PlanMembership } from '../plan/members'
import {
  newCancel,
  newGoal,
  newRedo,
  newSteer,
  newVerdict,
  type Role,
  type WireRecord,
} from '../protocol/records'
import { validateRecord } from '../protocol/validate'
import { AuthorQuotaError, GoalLimitError, ownGoalWouldWait } from './goal-limit'
import type { Outbox } from './outbox'
import type { PlanStore } from './store'
import type { PeerRuntime } from './types'

export interface PersonRecordsInit {
  /** the stable room id records carry */
  room: string
  peerId: string
  role: Role
  store: PlanStore
  outbox: Outbox
  /** the room's membership (goal limits count per member); undefined without a member */
  membership: () => PlanMembership | undefined
  now: () => number
}

export type PersonRecords = Pick<PeerRuntime, 'submitGoal' | 'cancelGoal' | 'steerGoal'>

export function personRecords(init: PersonRecordsInit): PersonRecords {
  const { room, peerId, role, store, outbox, now } = init
  // a person's record (goal, cancel) gets the checks every receiver applies
  // (the core checks its own): an invalid one is refused here, not published
  const ownRecord = <R extends WireRecord>(record: R): R => {
    const valid = validateRecord(record, { room, sender: peerId })
    if (!valid.ok) throw new Error(`invalid ${record.kind}: ${valid.detail}`)
    return record
  }
  return {
    async submitGoal(text, maxDepth = DEFAULT_MAX_DEPTH, approve = 'none') {
      // any role's person may write a goal (a headless observer's --goal): the
      // observer's role still publishes nothing of its own
      const goal = ownRecord(newGoal(room, peerId, text, now(), maxDepth, approve))
      // a goal over the limits per author would wait unseen: refuse it, saying why
      if (ownGoalWouldWait(store.records(), goal, init.membership())) throw new GoalLimitError()
      if (!store.wouldKeep(goal)) throw new AuthorQuotaError('goal')
      outbox.publish([goal])
      await outbox.sent()
      return goal.id
    },
    async cancelGoal(goalId, reason) {
      if (role === 'observer') throw new Error('an observer publishes nothing')
      const cancel = ownRecord(newCancel(room, peerId, goalId, now(), reason))
      if (!store.wouldKeep(cancel)) throw new AuthorQuotaError('cancel')
      outbox.publish([cancel])
      await outbox.sent()
    },
    async steerGoal(action) {
      if (role === 'observer') throw new Error('an observer publishes nothing')
      // only the goal's author's steering counts (plan/steering.ts): others' would be ignored
      const record = ownRecord(
        action.kind === 'settings'
          ? newSteer(room, peerId, action.goal, action.paused, action.approve, now())
          : action.kind === 'verdict'
            ? newVerdict(room, peerId, action, now())
            : newRedo(room, peerId, action.task, action.note, now()),
      )
      if (!store.wouldKeep(record)) throw new AuthorQuotaError(record.kind)
      outbox.publish([record])
      await outbox.sent()
    },
  }
}
