/**
 * The reason of a failed leaf is the real one, and one goal has one status,
 * in every view (issue 56): the tree (the UI's words), the goal's counts,
 * the export and the terminal all read them from the projection.
 */
import { describe, expect, it } from 'vitest'
import { nodeId, taskId } from '../protocol/ids'
import { stamp, type FailureRecord, type ReannounceRecord } from '../protocol/records'
import { derivePlan } from './derive'
import { exportMarkdown } from './export'
import { goalStatusWords } from './goal-status'
import { projectTree, type GoalView } from './tree'
import { goalStatus, rootGoalLines } from '../cli/tree-lines'
import { goalEndLine } from '../cli/goal-done'
import { goalLook, slotLook } from '../ui/lib/status'
import {
  acceptedSplit,
  claimOf,
  EXECUTOR,
  peer,
  ROOM,
  SCORERS,
  usage,
  type Split,
} from './split.test-support'

const NOT_FOUND = "the executor's model was not found (404)"

const leafNode = (split: Split, index: number) =>
  nodeId(split.goal.id, split.proposal.id, index, split.proposal.subgoals[index]!.text, true)
const leafTask = (split: Split, index: number) => taskId('execute', leafNode(split, index))

/** `from` claims leaf `index` in `epoch` and gives it back with `detail`. */
function failLeaf(split: Split, index: number, from: string, epoch: number, detail = NOT_FOUND) {
  split.plan.add(claimOf(from, 'execute', leafNode(split, index), epoch))
  split.plan.add(
    stamp<FailureRecord>({
      kind: 'failure',
      room: ROOM,
      from,
      subject: leafTask(split, index),
      stage: 'execute',
      epoch,
      index: -1,
      errorKind: 'other',
      detail,
      usage: { ...usage(0, 0), offline: false },
    }),
  )
}

/** A scorer re-announces the task of leaf `index` in `epoch`, then fails it with a notice saying `detail`. */
function notice(
  split: Split,
  index: number,
  epoch: number,
  errorKind: FailureRecord['errorKind'],
  detail: string,
) {
  const task = leafTask(split, index)
  split.plan.add(
    stamp<ReannounceRecord>({
      kind: 'reannounce',
      room: ROOM,
      from: SCORERS[0],
      task,
      epoch,
      at: 1,
    }),
  )
  split.plan.add(
    stamp<FailureRecord>({
      kind: 'failure',
      room: ROOM,
      from: SCORERS[0],
      subject: task,
      stage: 'capability-gap',
      epoch,
      index: -1,
      errorKind,
      detail,
      usage: null,
    }),
  )
}

function runLeaf(split: Split, index: number) {
  split.plan.add(claimOf(EXECUTOR, 'execute', leafNode(split, index), 0))
  split.plan.add(split.result(EXECUTOR, leafTask(split, index), 0, `output ${index}`))
}

const root = (split: Split): GoalView => projectTree(derivePlan(split.plan), split.plan).goals[0]!

// what a v7 scorer wrote before issue 56, whatever the reason
const OLD_GAP = 'nobody present claimed it: no live executor has the capability it needs'

describe('the reason of a failed leaf (issue 56)', () => {
  it("a leaf whose only executor's model failed is failed by that error, not a capability gap", () => {
    const split = acceptedSplit(2)
    failLeaf(split, 0, EXECUTOR, 0)
    notice(split, 0, 1, 'none', OLD_GAP)
    const goal = root(split)
    const leaf = goal.slots[0]!
    expect(leaf.status).toBe('failed')
    expect(leaf.why).toEqual({ kind: 'attempts', detail: NOT_FOUND })
    expect(leaf.leaf!.why).toEqual(leaf.why)
    expect(slotLook(leaf).label).toBe(`Failed: ${NOT_FOUND}`)
    expect(goal.leaves.failedBy).toMatchObject({ attempts: 1, gap: 0 })
    // the terminal and the export give the same reason
    expect(rootGoalLines(goal).map((l) => l.text)).toContainEqual(
      expect.stringContaining(`1 part 0: failed: ${NOT_FOUND}`),
    )
    expect(exportMarkdown({ goals: [goal] } as never, goal.id)).toContain(
      `failed: the executor's model was not found \\(404\\)`,
    )
  })

  it('a leaf both live executors failed says their errors, not that nobody has the capability', () => {
    const split = acceptedSplit(1)
    failLeaf(split, 0, peer('ExecA'), 0, "the model's replies did not pass validation")
    failLeaf(split, 0, peer('ExecB'), 1)
    notice(split, 0, 2, 'none', OLD_GAP)
    const why = root(split).slots[0]!.why!
    expect(why.kind).toBe('attempts')
    expect(why.detail).toBe(`${NOT_FOUND} (and 1 other error)`)
    expect(why.detail).not.toContain('capability')
  })

  it('a gap is a gap only when it is one; a notice that nobody could work says so', () => {
    const gap = acceptedSplit(1)
    notice(
      gap,
      0,
      0,
      'none',
      'nobody present claimed it: no live executor offers the capability it needs',
    )
    expect(root(gap).slots[0]!.why!.kind).toBe('gap')
    expect(root(gap).leaves.failedBy.gap).toBe(1)
    const unworked = acceptedSplit(1)
    notice(unworked, 0, 0, 'other', 'no live executor that offers it could take it')
    expect(root(unworked).slots[0]!.why).toEqual({
      kind: 'unworked',
      detail: 'no live executor that offers it could take it',
    })
  })

  it('a leaf depending on a failed leaf is blocked, in the tree, its counts and the terminal', () => {
    const split = acceptedSplit(2, 1, undefined, [[], [0]])
    failLeaf(split, 0, EXECUTOR, 0)
    notice(split, 0, 1, 'none', OLD_GAP)
    const goal = root(split)
    const blocked = goal.slots[1]!
    expect(blocked.status).toBe('failed')
    expect(blocked.why).toEqual({ kind: 'blocked', detail: 'depends on a failed leaf: 1. part 0' })
    expect(slotLook(blocked).label).toBe('Blocked: depends on a failed step')
    const line = rootGoalLines(goal).find((l) => l.key.endsWith(':1'))!.text
    expect(line).toContain('2 part 1: blocked: depends on a failed leaf: 1. part 0')
    expect(line).not.toContain('open')
    expect(goal.leaves).toMatchObject({ total: 2, done: 0, failed: 2 })
    expect(goal.leaves.failedBy).toMatchObject({ attempts: 1, blocked: 1 })
  })
})

describe('one goal, one status (issue 56)', () => {
  it('every part failed: waiting for the roll-up, the same words everywhere, never "in progress"', () => {
    const split = acceptedSplit(2)
    for (const index of [0, 1]) {
      failLeaf(split, index, EXECUTOR, 0)
      notice(split, index, 1, 'none', OLD_GAP)
    }
    const goal = root(split)
    expect(goal.status).toBe('accepted')
    expect(goal.phase).toBe('awaiting-rollup')
    const words = 'Every part settled (2 failed), waiting for the roll-up'
    expect(goalLook(goal).label).toBe(words)
    expect(goalStatus(goal)).toBe(
      `${words[0]!.toLowerCase()}${words.slice(1)}, 0 of 2 leaves done, 2 failed`,
    )
    expect(exportMarkdown({ goals: [goal] } as never, goal.id)).toContain(words)
  })

  it('rolled up with a failed leaf: finished with failed parts in the tab, the terminal and the end line', () => {
    const split = acceptedSplit(3, 1, undefined, [[], [], [1]])
    runLeaf(split, 0)
    failLeaf(split, 1, EXECUTOR, 0)
    notice(split, 1, 1, 'none', OLD_GAP)
    split.plan.add(claimOf(EXECUTOR, 'rollup', split.goal.id, 0))
    split.plan.add(split.result(EXECUTOR, taskId('rollup', split.goal.id), 0, 'the plan'))
    const goal = root(split)
    expect(goal.status).toBe('done')
    expect(goal.phase).toBe('partial')
    expect(goalLook(goal).label).toBe('Finished with 2 failed parts')
    const lines = rootGoalLines(goal).map((l) => l.text)
    expect(lines[0]).toContain('finished with 2 failed parts, 1 of 3 leaves done, 2 failed')
    // the leaf that waited for the failed one is blocked, never "open, no executor yet"
    expect(lines.join('\n')).not.toContain('no executor yet')
    expect(goalEndLine(goal, '/tmp/plan.md')).toBe(
      'goal finished with 2 failed parts: “Plan a trip” (1 of 3 leaves done, 2 failed); plan written to /tmp/plan.md',
    )
    expect(goalStatusWords(goal, (p) => p)).toBe(goalLook(goal).label)
  })

  it('paused is said by every view while the goal runs', () => {
    const split = acceptedSplit(2)
    split.plan.add(
      stamp({
        kind: 'steer',
        room: ROOM,
        from: split.goal.from,
        goal: split.goal.id,
        paused: true,
        approve: 'none',
        at: 2,
      } as never),
    )
    const goal = root(split)
    expect(goal.phase).toBe('paused')
    expect(goalLook(goal).label).toBe('Paused by its author')
    expect(goalStatus(goal)).toMatch(/^paused by its author/)
  })
})
