import { describe, expect, it } from 'vitest'
import { runSeed } from '../sim/run'
import { DEFAULT_SWARM, type Swarm } from '../sim/swarm'
import { derivePlan } from '../plan/derive'
import { PlanState } from '../plan/state'
import { projectTree, type GoalView, type PlanTree, type SlotView } from '../plan/tree'
import { leavesHeldBy, MARKS, rootGoalLines, shortPeer, treeLines } from './tree-lines'
import { FINAL_PLAN_END, FINAL_PLAN_START, TreePrinter } from './observer-print'

/** Steps of the seeded run between two looks at the observer's tree. */
const LOOK_EVERY = 10

/** The observer's tree through one seeded swarm run, each time it looked different, to the end. */
function treesOfRun(): PlanTree[] {
  const trees: PlanTree[] = []
  let last = ''
  let n = 0
  let state: PlanState | undefined
  const look = () => {
    const tree = projectTree(derivePlan(state!), state!)
    const text = treeLines(tree)
      .map((line) => line.text)
      .join('\n')
    if (text !== last) trees.push(tree)
    last = text
  }
  runSeed({
    ...DEFAULT_SWARM,
    seed: 7,
    onStep: (sim: Swarm) => {
      const observer = sim.alive().find((peer) => peer.role === 'observer')!
      state = new PlanState()
      for (const record of observer.state!.plan.records()) state.add(record)
      if (++n % LOOK_EVERY === 0) look()
    },
  })
  look()
  return trees
}

const RUN = treesOfRun()
const claimed = (tree: PlanTree) =>
  tree.goals.flatMap(leaves).some((slot) => slot.leaf!.status === 'claimed')
/** the first tree with a goal; one with splits being scored; one with a leaf claimed; the end */
const FIRST = RUN.find((tree) => tree.goals.length > 0)!
const SCORING = RUN.find((tree) => tree.goals[0]?.status === 'scoring')!
const CLAIMED = RUN.find(claimed)!
const END = RUN.at(-1)!

function leaves(goal: GoalView): SlotView[] {
  return goal.slots.flatMap((slot) => (slot.goal ? leaves(slot.goal) : slot.leaf ? [slot] : []))
}

describe('treeLines', () => {
  const done = END

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
    const early = SCORING
    const earlyKeys = new Set(treeLines(early).map((line) => line.key))
    const lateKeys = treeLines(done).map((line) => line.key)
    expect([...earlyKeys].every((key) => lateKeys.includes(key))).toBe(true)
    expect(new Set(lateKeys).size).toBe(lateKeys.length)
  })

  it('marks work in progress and open work', () => {
    const texts = [FIRST, SCORING, CLAIMED].flatMap((tree) => treeLines(tree).map((l) => l.text))
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
    const first = printer.step(FIRST, at)
    expect(first).toContain('12:00:05 New goal')
    expect(printer.step(FIRST, at)).toEqual([])

    // every tree of the run after it, one a second: each block has the time and changed lines only
    const blocks: string[][] = []
    RUN.slice(RUN.indexOf(FIRST) + 1, -1).forEach((tree, i) =>
      blocks.push(printer.step(tree, at + 1000 * (i + 1))),
    )
    const updates = blocks.filter((block) => block.length > 0 && !block.includes(''))
    expect(updates.length).toBeGreaterThan(3)
    for (const block of updates) expect(block[0]).toMatch(/^\d\d:\d\d:\d\d$/)
    const partial = updates.filter((block) => {
      const tree = RUN[RUN.indexOf(FIRST) + 1 + blocks.indexOf(block)]!
      const all = treeLines(tree).map((line) => line.text)
      return block.slice(1).every((line) => all.includes(line)) && block.length - 1 < all.length
    })
    expect(partial.length).toBeGreaterThan(0)
    expect(updates.flat().some((line) => /claimed by …\w{6}$/.test(line))).toBe(true)
    expect(updates.flat().some((line) => /\[✓\] .*done by …\w{6}$/.test(line))).toBe(true)

    const end = printer.step(END, at + 2000)
    const goal = END.goals[0]!
    expect(end).toContain(`12:00:07 Goal done: “${goal.text}” (by ${shortPeer(goal.createdBy)})`)
    expect(end).toContain(`${FINAL_PLAN_START} “${goal.text}” (Markdown)`)
    expect(end.at(-1)).toBe(FINAL_PLAN_END)
    expect(end.join('\n')).toContain(`# ${goal.text}`)
    expect(end.join('\n')).toContain(goal.rollup.output!.trim().split('\n')[0]!)
    // said once: a settled goal is not printed again
    expect(printer.step(END, at + 3000)).toEqual([])
  })
})

describe('leavesHeldBy', () => {
  it('names the leaves a peer holds, by number and text, and none once they are done', () => {
    const tree = CLAIMED
    const holders = new Set(
      treeLines(tree)
        .map((line) => /claimed by …(\w{6})$/.exec(line.text)?.[1])
        .filter((tail): tail is string => tail !== undefined),
    )
    expect(holders.size).toBeGreaterThan(0)
    const everyone = tree.goals.flatMap(leaves).map((slot) => slot.leaf!.holder)
    for (const tail of holders) {
      const peer = everyone.find((id) => id?.endsWith(tail))!
      const held = leavesHeldBy(tree, peer)
      expect(held.length).toBeGreaterThan(0)
      for (const leaf of held) {
        const line = treeLines(tree).find((l) => l.text.includes(` ${leaf.number} ${leaf.text}:`))
        expect(line?.text).toMatch(new RegExp(`claimed by …${tail}$`))
        expect(leaf.root).toBe(tree.goals[0]!.text)
      }
      expect(leavesHeldBy(END, peer)).toEqual([])
    }
  })
})
