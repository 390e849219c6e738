/**
 * The plan tree as lines of plain text, for a terminal: what a headless
 * observer prints (observer-print.ts), as the prototype's observer did.
 *
 *   [~] Plan a trip to Japan: split accepted (mean 0.78, quorum), 1 of 3 leaves done
 *       split by …a1b2c3: 3 subgoals, votes 0.80 …d4e5f6, 0.76 …0718aa, mean 0.78 (winner)
 *     [✓] 1 Book flights: done by …9f8e7d
 *     [~] 2 Find hotels: claimed by …9f8e7d
 *     [ ] 3 Plan the days: open, no executor yet
 *     [ ] roll-up: waiting for the parts
 *
 * Each line has a stable key (the goal, proposal or slot it shows), so the
 * printer can say only what changed. Pure: a tree in, lines out; no colour,
 * no cursor movement, so a log file reads as the terminal did.
 */
import type { GoalView, PlanTree, ProposalView, SlotView, TaskView } from '../plan/tree'

export interface TreeLine {
  /** stable across trees: 'g:<id>', 'p:<id>', 's:<goal>:<index>', 'r:<goal>' */
  key: string
  text: string
}

/** Characters of a peer id shown: the tail, as the tabs' activity lists show it. */
const PEER_TAIL = 6
/** Longest goal or subgoal text on one line; the rest is cut with "…". */
const MAX_TEXT = 90
/** Longest failure detail on one line. */
const MAX_DETAIL = 80

export const MARKS = { done: '[✓]', failed: '[✗]', running: '[~]', open: '[ ]' } as const

/** A peer as the terminal names it: "…" and the last characters of its id. */
export function shortPeer(peerId: string): string {
  return `…${peerId.slice(-PEER_TAIL)}`
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

function leafCounts(goal: GoalView): { leaves: number; done: number } {
  let leaves = 0
  let done = 0
  for (const slot of goal.slots) {
    if (slot.goal) {
      const below = leafCounts(slot.goal)
      leaves += below.leaves
      done += below.done
    } else {
      leaves++
      if (slot.status === 'done') done++
    }
  }
  return { leaves, done }
}

function goalMark(goal: GoalView): string {
  if (goal.status === 'done') return MARKS.done
  if (goal.status === 'failed' || goal.status === 'cancelled') return MARKS.failed
  return goal.status === 'awaiting-proposals' ? MARKS.open : MARKS.running
}

function goalStatus(goal: GoalView): string {
  switch (goal.status) {
    case 'awaiting-proposals':
      return goal.proposals.length
        ? `${goal.proposals.length} split(s) proposed, waiting for scores`
        : 'waiting for splits'
    case 'scoring':
      return `scoring ${goal.proposals.length} split(s)`
    case 'awaiting-approval':
      return `waiting for the author's approval (${shortPeer(goal.createdBy)})`
    case 'accepted': {
      const { leaves, done } = leafCounts(goal)
      const split = goal.accepted
        ? `split accepted (mean ${goal.accepted.score.toFixed(2)}, ${goal.accepted.basis})`
        : 'split accepted'
      return leaves ? `${split}, ${done} of ${leaves} leaves done` : split
    }
    case 'done':
      return 'done'
    case 'failed':
      return 'failed'
    case 'cancelled':
      return goal.authorRemoved ? 'cancelled: its author was removed from the room' : 'cancelled'
  }
}

function proposalLine(proposal: ProposalView): string {
  const votes = proposal.votes.map((vote) => `${vote.score.toFixed(2)} ${shortPeer(vote.from)}`)
  const scored = votes.length ? `votes ${votes.join(', ')}` : 'no votes yet'
  const mean = proposal.mean === null ? '' : `, mean ${proposal.mean.toFixed(2)}`
  const n = proposal.subgoals.length
  return `split by ${shortPeer(proposal.from)}: ${n} subgoal${n === 1 ? '' : 's'}, ${scored}${mean}${proposal.accepted ? ' (winner)' : ''}`
}

/** What a task (a leaf or a roll-up) is doing, with who holds or did it. */
function taskStatus(task: TaskView, openText: string): { mark: string; text: string } {
  const failure = task.failures.at(-1)
  switch (task.status) {
    case 'done':
      return {
        mark: MARKS.done,
        text: `done${task.resultBy ? ` by ${shortPeer(task.resultBy)}` : ''}`,
      }
    case 'failed':
      return {
        mark: MARKS.failed,
        text: `failed: ${clip(task.gap ?? failure?.detail ?? 'no detail', MAX_DETAIL)}`,
      }
    default:
      if (task.holder) return { mark: MARKS.running, text: `claimed by ${shortPeer(task.holder)}` }
      return {
        mark: MARKS.open,
        text: failure
          ? `${openText} (last try failed: ${clip(failure.detail, MAX_DETAIL)})`
          : openText,
      }
  }
}

const SLOT_WAITING: Record<SlotView['status'], string> = {
  approval: "waiting for the author's approval",
  waiting: 'waiting for the subgoals it depends on',
  open: 'open, no executor yet',
  claimed: 'claimed',
  active: 'being written',
  done: 'done',
  failed: 'failed',
}

function slotLines(goal: GoalView, slot: SlotView, number: string, depth: number): TreeLine[] {
  const indent = '  '.repeat(depth)
  const key = `s:${goal.id}:${slot.index}`
  const text = clip(slot.text, MAX_TEXT)
  if (slot.goal) {
    // a composite subgoal is a goal one level deeper: its line, then its own split
    return goalLines(slot.goal, number, depth, key)
  }
  if (!slot.leaf) {
    const mark = slot.status === 'failed' ? MARKS.failed : MARKS.open
    return [{ key, text: `${indent}${mark} ${number} ${text}: ${SLOT_WAITING[slot.status]}` }]
  }
  const openText = slot.status === 'waiting' ? SLOT_WAITING.waiting : SLOT_WAITING.open
  const { mark, text: status } = taskStatus(slot.leaf, openText)
  const redone = slot.superseded.length ? ` (redo ${slot.superseded.length})` : ''
  return [{ key, text: `${indent}${mark} ${number} ${text}: ${status}${redone}` }]
}

function goalLines(
  goal: GoalView,
  number: string,
  depth: number,
  key = `g:${goal.id}`,
): TreeLine[] {
  const indent = '  '.repeat(depth)
  const label = number ? `${number} ` : ''
  const by = depth === 0 ? ` (by ${shortPeer(goal.createdBy)})` : ''
  const lines: TreeLine[] = [
    {
      key,
      text: `${indent}${goalMark(goal)} ${label}${clip(goal.text, MAX_TEXT)}${by}: ${goalStatus(goal)}`,
    },
  ]
  for (const proposal of goal.proposals)
    lines.push({ key: `p:${proposal.id}`, text: `${indent}    ${proposalLine(proposal)}` })
  const prefix = number ? `${number}.` : ''
  for (const slot of goal.slots)
    lines.push(...slotLines(goal, slot, `${prefix}${slot.index + 1}`, depth + 1))
  if (goal.slots.length) {
    const { mark, text } = taskStatus(goal.rollup, 'waiting for the parts')
    lines.push({ key: `r:${goal.id}`, text: `${indent}  ${mark} roll-up: ${text}` })
  }
  return lines
}

/** One root goal's lines, depth first. */
export function rootGoalLines(goal: GoalView): TreeLine[] {
  return goalLines(goal, '', 0)
}

/** Every root goal's lines, in the tree's order. */
export function treeLines(tree: PlanTree): TreeLine[] {
  return tree.goals.flatMap(rootGoalLines)
}

/** A root goal is settled: nothing more will happen to it. */
export function settled(goal: GoalView): boolean {
  return goal.status === 'done' || goal.status === 'failed' || goal.status === 'cancelled'
}

/** A leaf some peer holds now: its task id, its outline number and text, and its root goal. */
export interface HeldLeaf {
  task: string
  number: string
  text: string
  root: string
}

/** The leaves `peerId` holds (has claimed, not yet done or given back), depth first. */
export function leavesHeldBy(tree: PlanTree, peerId: string): HeldLeaf[] {
  const held: HeldLeaf[] = []
  const walk = (goal: GoalView, prefix: string, root: string) => {
    for (const slot of goal.slots) {
      const number = `${prefix}${slot.index + 1}`
      if (slot.goal) walk(slot.goal, `${number}.`, root)
      else if (slot.leaf?.status === 'claimed' && slot.leaf.holder === peerId)
        held.push({ task: slot.leaf.id, number, text: clip(slot.text, MAX_TEXT), root })
    }
  }
  for (const goal of tree.goals) walk(goal, '', clip(goal.text, MAX_TEXT))
  return held
}
