/**
 * The plan tree as lines of plain text, for a terminal: what a headless
 * observer prints (observer-print.ts), as the prototype's observer did.
 *
 *   [~] Plan a trip to Japan (by …c0ffee): split accepted, in progress (mean 0.78, quorum), 1 of 4 leaves done, 1 failed
 *       split by …a1b2c3: 4 subgoals, votes 0.80 …d4e5f6, 0.76 …0718aa, mean 0.78 (winner)
 *     [✓] 1 Book flights: done by …9f8e7d
 *     [~] 2 Find hotels: claimed by …9f8e7d
 *     [✗] 3 Price the rail pass: failed: the executor's model was not found (404)
 *     [ ] 4 Plan the days: open, no executor yet
 *     [ ] roll-up: waiting for the parts
 *
 * Each line has a stable key (the goal, proposal or slot it shows), so the
 * printer can say only what changed. Pure: a tree in, lines out; no colour,
 * no cursor movement, so a log file reads as the terminal did.
 */
import { goalStatusWords, leafCountWords } from '../plan/goal-status'
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

function goalMark(goal: GoalView): string {
  if (goal.phase === 'complete') return MARKS.done
  if (goal.phase === 'partial' || goal.phase === 'failed' || goal.phase === 'cancelled')
    return MARKS.failed
  return goal.phase === 'awaiting-proposals' ? MARKS.open : MARKS.running
}

/**
 * A goal's status: the words a tab shows (plan/goal-status.ts), with the
 * winning split's score while it runs and the leaves' counts.
 */
export function goalStatus(goal: GoalView): string {
  const words = goalStatusWords(goal, shortPeer)
  const split =
    goal.accepted && goal.phase === 'running'
      ? ` (mean ${goal.accepted.score.toFixed(2)}, ${goal.accepted.basis})`
      : ''
  // a goal done whole needs no counts: every leaf of it is marked done below
  const counts =
    goal.leaves.total && goal.phase !== 'complete' ? `, ${leafCountWords(goal.leaves)}` : ''
  return `${words[0]!.toLowerCase()}${words.slice(1)}${split}${counts}`
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
      // the real reason: its executors' error before any notice that ended it (plan/why.ts)
      return {
        mark: MARKS.failed,
        text: `${task.why?.kind === 'gap' ? 'capability gap' : 'failed'}: ${clip(task.why?.detail ?? 'no detail', MAX_DETAIL)}`,
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
  // a leaf that can never run because a step it depends on failed is blocked, not open
  if (slot.why?.kind === 'blocked')
    return [
      { key, text: `${indent}${MARKS.failed} ${number} ${text}: blocked: ${slot.why.detail}` },
    ]
  const openText = slot.noWorker
    ? `waiting: no working executor offers ${slot.noWorker.capability}`
    : slot.capabilityGap
      ? `waiting: nobody offers ${slot.capabilityGap.capability}`
      : slot.status === 'waiting'
        ? SLOT_WAITING.waiting
        : SLOT_WAITING.open
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
