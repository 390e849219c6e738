import { beforeAll, describe, expect, it } from 'vitest'
import { compareRank, contentId } from '../protocol/hash'
import { taskId } from '../protocol/ids'
import {
  stamp,
  type AcceptRecord,
  type CancelRecord,
  type ClaimRecord,
  type Draft,
  type FailureRecord,
  type PlanRecord,
  type ReannounceRecord,
  type ResultRecord,
} from '../protocol/records'
import { DEFAULT_SWARM, type Swarm } from '../sim/swarm'
import { runSeed } from '../sim/run'
import { countedCancels, countedClaims, gapCounts, holdingCounts } from './authority'
import { derivePlan } from './derive'
import { PlanState } from './state'
import { deriveTask } from './tasks'
import { projectTree } from './tree'

const ROOM = 'lobby'
const MALLORY = '12D3KooWMallory000000000000000000000000000000000000'
const usage = {
  provider: 'offline',
  model: 'offline-v1',
  inputTokens: 1,
  outputTokens: 1,
  offline: true,
}
const TASK = taskId('execute', 'a'.repeat(32))

function claim(from: string, epoch: number, subject = 'a'.repeat(32)): ClaimRecord {
  return stamp<ClaimRecord>({
    kind: 'claim',
    room: ROOM,
    from,
    task: taskId('execute', subject),
    taskType: 'execute',
    subject,
    epoch,
    at: 1,
  } as Draft<ClaimRecord>)
}

function result(from: string, task: string, epoch: number, output: string): ResultRecord {
  return stamp<ResultRecord>({ kind: 'result', room: ROOM, from, task, epoch, output, usage })
}

function gap(from: string, task: string, epoch: number): FailureRecord {
  return stamp<FailureRecord>({
    kind: 'failure',
    room: ROOM,
    from,
    subject: task,
    stage: 'capability-gap',
    epoch,
    index: -1,
    errorKind: 'none',
    detail: 'nobody can',
    usage: null,
  })
}

function reannounce(from: string, task: string, epoch: number): ReannounceRecord {
  return stamp<ReannounceRecord>({ kind: 'reannounce', room: ROOM, from, task, epoch, at: 1 })
}

function cancel(from: string, goal: string): CancelRecord {
  return stamp<CancelRecord>({ kind: 'cancel', room: ROOM, from, goal, reason: 'no', at: 1 })
}

describe('rules, one by one', () => {
  it('epochs move one step at a time', () => {
    const steps = [claim('a', 0), claim('b', 1), claim('c', 2)]
    expect(countedClaims(steps)).toHaveLength(3)
    expect(countedClaims([claim('a', 0), claim('m', 1000)]).map((c) => c.from)).toEqual(['a'])
    expect(countedClaims([claim('m', 5)])).toEqual([])
  })

  it('no claim counts past an epoch that has a result by its claimant', () => {
    const done = result('a', TASK, 0, 'the work')
    expect(countedClaims([claim('a', 0), claim('m', 1)], [done]).map((c) => c.from)).toEqual(['a'])
    // a result by someone who did not claim that epoch does not close the task
    const stray = result('x', TASK, 0, 'not theirs')
    expect(countedClaims([claim('a', 0), claim('b', 1)], [stray])).toHaveLength(2)
  })

  it('a finished task keeps the holder who finished it, whatever claim arrives late', () => {
    const subject = 'a'.repeat(32)
    const withLate = (late: boolean) => {
      const plan = new PlanState()
      plan.add(claim('a', 0))
      plan.add(result('a', TASK, 0, 'the work'))
      // a higher-ranked peer's claim of epoch 0, heard only by some peers
      if (late) plan.add(claim(outranksA, 0))
      return deriveTask(plan, 'execute', subject)
    }
    const outranksA = ['b', 'c', 'd', 'e', 'f', 'g', 'h'].find(
      (p) => compareRank(TASK, p, 'a') < 0,
    )!
    expect(withLate(true).status).toBe('done')
    expect(withLate(true).holder?.from).toBe('a')
    expect(withLate(true).holder).toEqual(withLate(false).holder)
  })

  it('a capability gap counts only for the open epoch, after its re-announce', () => {
    const notice = gap('s', TASK, 0)
    expect(gapCounts(notice, -1, [reannounce('s', TASK, 0)])).toBe(true)
    expect(gapCounts(notice, -1, [])).toBe(false)
    expect(gapCounts(gap('m', TASK, 1000), -1, [reannounce('m', TASK, 1000)])).toBe(false)
    expect(gapCounts(notice, 0, [reannounce('s', TASK, 0)])).toBe(false)
  })

  it('a cancel counts only from the goal’s author', () => {
    const goal = 'b'.repeat(32)
    expect(countedCancels([cancel(MALLORY, goal)], 'alice')).toEqual([])
    expect(countedCancels([cancel('alice', goal)], 'alice')).toHaveLength(1)
  })

  it('a holding counts for a real claim, or briefly while the claim may be in transit', () => {
    const claims = [claim('a', 0)]
    expect(holdingCounts(claims, 'a', 0, 1_000_000, 40_000)).toBe(true)
    expect(holdingCounts(claims, 'm', 0, 10_000, 40_000)).toBe(true)
    expect(holdingCounts(claims, 'm', 0, 40_000, 40_000)).toBe(false)
  })
})

/** A finished plan from the simulator, attacked by a member with valid (sealed, signed) records. */
describe('a hostile member against a finished plan', () => {
  let records: PlanRecord[] = []
  const stateOf = (list: readonly PlanRecord[]) => {
    const state = new PlanState()
    for (const record of list) state.add(record)
    return state
  }
  const treeOf = (list: readonly PlanRecord[]) => {
    const state = stateOf(list)
    return contentId(projectTree(derivePlan(state), state) as unknown as never)
  }

  beforeAll(() => {
    let sim: Swarm | undefined
    runSeed({ ...DEFAULT_SWARM, seed: 8, onStep: (s) => (sim = s) })
    const observer = sim!.alive().find((peer) => peer.role === 'observer')!
    records = [...observer.state!.plan.records()]
  })

  const root = () => {
    const plan = derivePlan(stateOf(records))
    const goal = plan.goals.get(plan.roots[0]!)!
    expect(goal.status).toBe('done')
    return { plan, goal }
  }

  it('cannot cancel someone else’s goal (its author can)', () => {
    const { goal } = root()
    const room = records[0]!.room
    const attacked = [...records, { ...cancel(MALLORY, goal.id), room }]
    expect(treeOf(attacked)).toBe(treeOf(records))
    const own = stamp<CancelRecord>({
      kind: 'cancel',
      room,
      from: goal.createdBy,
      goal: goal.id,
      reason: 'mine',
      at: 2,
    })
    const plan = derivePlan(stateOf([...records, own]))
    expect(plan.goals.get(goal.id)!.status).toBe('cancelled')
  })

  it('cannot replace the final plan by claiming a higher epoch', () => {
    const { goal } = root()
    const task = goal.rollup
    const room = records[0]!.room
    const takeover = stamp<ClaimRecord>({
      kind: 'claim',
      room,
      from: MALLORY,
      task: task.id,
      taskType: 'rollup',
      subject: goal.id,
      epoch: task.epoch + 1,
      at: 1,
    } as Draft<ClaimRecord>)
    const forged = { ...result(MALLORY, task.id, task.epoch + 1, 'Send me money'), room }
    const attacked = derivePlan(stateOf([...records, takeover, stamp<ResultRecord>({ ...forged })]))
    const after = attacked.goals.get(goal.id)!
    expect(after.status).toBe('done')
    expect(after.rollup.result!.id).toBe(task.result!.id)
    expect(after.rollup.holder!.id).toBe(task.holder!.id)
  })

  it('cannot fail a task or the root goal with a capability gap at a high epoch', () => {
    const { plan, goal } = root()
    const room = records[0]!.room
    const attacked = [...records]
    for (const task of [goal.rollup, ...plan.tasks.values()]) {
      attacked.push(
        { ...gap(MALLORY, task.id, 1000), room },
        { ...reannounce(MALLORY, task.id, 1000), room },
      )
    }
    expect(treeOf(attacked.map((r) => stamp(r as Draft<PlanRecord>)))).toBe(treeOf(records))
  })

  it('cannot swap an accepted split by taking the decide task over', () => {
    const { plan } = root()
    const room = records[0]!.room
    const goal = [...plan.goals.values()].find(
      (g) =>
        g.accepted &&
        g.proposals.some((p) => (g.votes.get(p.id)?.length ?? 0) >= 2 && p.id !== g.accepted!.id),
    )
    expect(goal, 'a goal with a losing proposal of two votes').toBeDefined()
    const loser = goal!.proposals.find(
      (p) => p.id !== goal!.accepted!.id && (goal!.votes.get(p.id)?.length ?? 0) >= 2,
    )!
    const takeover = stamp<ClaimRecord>({
      kind: 'claim',
      room,
      from: MALLORY,
      task: goal!.decide.id,
      taskType: 'decide',
      subject: goal!.id,
      epoch: goal!.decide.epoch + 1,
      at: 1,
    } as Draft<ClaimRecord>)
    const swap = stamp<AcceptRecord>({
      kind: 'accept',
      room,
      from: MALLORY,
      goal: goal!.id,
      proposal: loser.id,
      basis: 'deadline',
      votes: goal!.votes.get(loser.id)!.map((v) => v.id),
      epoch: goal!.decide.epoch + 1,
    } as Draft<AcceptRecord>)
    const after = derivePlan(stateOf([...records, takeover, swap])).goals.get(goal!.id)!
    expect(after.accepted!.id).toBe(goal!.accepted!.id)
  })

  it('cannot take a leaf by jumping epochs', () => {
    const { plan } = root()
    const room = records[0]!.room
    const leaf = [...plan.leaves.values()][0]!.slot
    const jump = stamp<ClaimRecord>({
      kind: 'claim',
      room,
      from: MALLORY,
      task: leaf.execute!.id,
      taskType: 'execute',
      subject: leaf.id!,
      epoch: 1000,
      at: 1,
    } as Draft<ClaimRecord>)
    const output = { ...result(MALLORY, leaf.execute!.id, 1000, 'forged'), room }
    const attacked = derivePlan(stateOf([...records, jump, stamp<ResultRecord>(output)]))
    const task = attacked.tasks.get(leaf.execute!.id)!
    expect(task.epoch).toBe(leaf.execute!.epoch)
    expect(task.holder!.id).toBe(leaf.execute!.holder!.id)
    expect(task.result!.id).toBe(leaf.execute!.result!.id)
  })
})
