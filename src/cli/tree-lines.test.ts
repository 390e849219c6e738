import { describe, expect, it } from 'vitest'
import { runSeed } from '../sim/run'
import { DEFAULT_SWARM, type Swarm } from '../sim/swarm'
import { derivePlan } from '../plan/derive'
import { PlanState } from '../plan/state'
import { projectTree, type GoalView, type PlanTree, type SlotView } from '../plan/tree'
import { MARKS, rootGoalLines, shortPeer, treeLines } from './tree-lines'
import { FINAL_PLAN_END, FINAL_PLAN_START, TreePrinter } from './observer-print'

/** The observer's trees of one seeded swarm run: after each of `steps` steps, and at the end. */
function treesOfRun(steps: number[]): { at: Map<number, PlanTree>; end: PlanTree } {
  const at = new Map<number, PlanTree>()
  let last: PlanState | undefined
  let n = 0
  const project = (state: PlanState) => projectTree(derivePlan(state), state)
  runSeed({
    ...DEFAULT_SWARM,
    seed: 7,
    onStep: (sim: Swarm) => {
      n++
      const observer = sim.alive().find((peer) => peer.role === 'observer')!
      last = new PlanState()
      for (const record of observer.state!.plan.records()) last.add(record)
      if (steps.includes(n)) at.set(n, project(last))
    },
  })
  return { at, end: project(last!) }
}

// one run, seen at these steps: a goal waiting for splits (300), splits being
// scored (400), leaves claimed (900, 1000), and the end (done)
const RUN = treesOfRun([300, 400, 900, 1000])
const treeAt = (steps?: number): PlanTree => (steps === undefined ? RUN.end : RUN.at.get(steps)!)

function leaves(goal: GoalView): SlotView[] {
  return goal.slots.flatMap((slot) => (slot.goal ? leaves(slot.goal) : slot.leaf ? [slot] : []))
}

describe('treeLines', () => {
  const done = treeAt()

  it('shows a finished goal done, every leaf done by its executor, the winning split and its votes', () => {
    const goal = done.goals[0]!
    expect(goal.status).toBe('done')
    const lines = rootGoalLines(goal).map((line) => line.text)
    expect(lines[0]).toBe(`${MARKS.done} ${goal.text} (by ${shortPeer(goal.createdBy)}): done`)
    for (const leaf of leaves(goal)) {
      const line = lines.find((text) => text.includes(` ${leaf.text.slice(0, 40)}`))
      expect(line, leaf.text).toContain(`${MARKS.done} `)
      expect(line).toContain(`done by ${shortPeer(leaf.leaf!.resultBy!)}`)
    }
    const winner = goal.proposals.find((p) => p.accepted)!
    const winnerLine = lines.find((text) => text.includes('(winner)'))!
    expect(winnerLine).toContain(`split by ${shortPeer(winner.from)}`)
    for (const vote of winner.votes)
      expect(winnerLine).toContain(`${vote.score.toFixed(2)} ${shortPeer(vote.from)}`)
    expect(lines.filter((text) => text.includes('(winner)'))).toHaveLength(
      1 + countChildGoals(goal),
    )
    expect(lines.at(-1)).toMatch(/^\s*\[✓\] roll-up: done by …/)
  })

  it('numbers subgoals by their place and indents them by depth', () => {
    const lines = treeLines(done).map((line) => line.text)
    expect(lines.some((text) => /^ {2}\[.\] 1 /.test(text))).toBe(true)
    const nested = lines.find((text) => /^ {4}\[.\] \d\.\d /.test(text))
    if (countChildGoals(done.goals[0]!) > 0) expect(nested).toBeDefined()
  })

  it('keys lines by what they show, so a changed status is the same key', () => {
    const early = treeAt(400)
    const earlyKeys = new Set(treeLines(early).map((line) => line.key))
    const lateKeys = treeLines(done).map((line) => line.key)
    expect([...earlyKeys].every((key) => lateKeys.includes(key))).toBe(true)
    expect(new Set(lateKeys).size).toBe(lateKeys.length)
  })

  it('marks work in progress and open work', () => {
    const texts = [300, 400, 900, 1000].flatMap((n) => treeLines(treeAt(n)).map((l) => l.text))
    expect(texts.some((text) => text.includes(MARKS.running))).toBe(true)
    expect(texts.some((text) => text.includes(MARKS.open))).toBe(true)
    expect(texts.some((text) => /claimed by …\w{6}/.test(text))).toBe(true)
  })
})

function countChildGoals(goal: GoalView): number {
  return goal.slots.reduce((n, slot) => n + (slot.goal ? 1 + countChildGoals(slot.goal) : 0), 0)
}

describe('TreePrinter', () => {
  it('prints a new goal whole, then only changed lines, then the final tree and plan once', () => {
    const printer = new TreePrinter()
    const at = new Date(2026, 0, 1, 12, 0, 5).getTime()
    const first = printer.step(treeAt(300), at)
    expect(first).toContain('12:00:05 New goal')
    expect(printer.step(treeAt(300), at)).toEqual([])

    expect(printer.step(treeAt(900), at + 500).length).toBeGreaterThan(1)
    const later = treeAt(1000)
    const update = printer.step(later, at + 1000)
    expect(update[0]).toBe('12:00:06')
    // 900 → 1000: leaf 3.1 and 3.3 were claimed
    expect(update.some((line) => /3\.1 .*claimed by …\w{6}$/.test(line))).toBe(true)
    const all = treeLines(later).map((line) => line.text)
    // every printed line is a line of the tree, and fewer than all of them
    for (const line of update.slice(1)) expect(all).toContain(line)
    expect(update.length - 1).toBeLessThan(all.length)

    const end = printer.step(treeAt(), at + 2000)
    const goal = treeAt().goals[0]!
    expect(end).toContain(`12:00:07 Goal done: “${goal.text}” (by ${shortPeer(goal.createdBy)})`)
    expect(end).toContain(`${FINAL_PLAN_START} “${goal.text}” (Markdown)`)
    expect(end.at(-1)).toBe(FINAL_PLAN_END)
    expect(end.join('\n')).toContain(`# ${goal.text}`)
    expect(end.join('\n')).toContain(goal.rollup.output!.trim().split('\n')[0]!)
    // said once: a settled goal is not printed again
    expect(printer.step(treeAt(), at + 3000)).toEqual([])
  })
})
