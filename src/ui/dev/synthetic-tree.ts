/**
 * DEV ONLY: a plan tree of any size, for the UI lab's performance runs.
 * Deterministic (no randomness) so runs compare. Goals get `branching`
 * subgoals, level by level, until `nodes` nodes exist; the deepest level is
 * leaves, and statuses are mixed the way a busy swarm mixes them.
 */
import {
  zeroRoleUsage,
  type GoalView,
  type PlanTree,
  type ProposalView,
  type SlotView,
  type TaskView,
} from '../../plan/tree'
import type { Capability } from '../../protocol/capabilities'
import type { Step } from '../../protocol/steps'
import { noLeaves } from '../../plan/goal-status'

const PEERS = Array.from(
  { length: 12 },
  (_, i) => `12D3KooWLabPeer${String(i).padStart(2, '0')}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`,
)
const peer = (i: number) => PEERS[i % PEERS.length]!

function task(
  id: string,
  status: TaskView['status'],
  i: number,
  output: string | null,
  steps: Step[] | null = null,
): TaskView {
  return {
    id: `task-${id}`,
    status,
    epoch: 0,
    holder: status === 'open' ? null : peer(i + 3),
    claimedAt: status === 'open' ? null : 1_700_000_000_000 + i * 1000,
    output,
    resultBy: output ? peer(i + 3) : null,
    steps,
    failures: status === 'failed' ? [{ from: peer(i + 3), detail: 'the provider timed out' }] : [],
    gap: null,
    why: status === 'failed' ? { kind: 'attempts', detail: 'the provider timed out' } : null,
  }
}

function proposals(goalId: string, text: string, count: number, i: number): ProposalView[] {
  return Array.from({ length: 3 }, (_, p) => {
    const votes = [0, 1].map((v) => ({
      from: peer(i + v + 6),
      score: p === 0 ? 0.8 + v * 0.05 : 0.4 + p * 0.05,
      notes: p === 0 ? 'Covers the goal, little overlap.' : 'Parts overlap; one step is vague.',
    }))
    return {
      id: `${goalId}-p${p}`,
      from: peer(i + p),
      subgoals: Array.from({ length: Math.max(count, 2) }, (_, s) => ({
        text: `${text} / step ${s + 1}`,
        dependsOn: [],
      })),
      rationale: 'Split by phase: prepare, do, check.',
      votes,
      mean: votes.reduce((sum, v) => sum + v.score, 0) / votes.length,
      accepted: p === 0,
      offline: true,
    }
  })
}

/** What a done leaf's executor did, by the capability it needed: the leaf view's steps. */
function labSteps(capability: Capability, i: number): Step[] | null {
  if (capability === 'can_run_code') {
    return [
      {
        type: 'code',
        language: 'javascript',
        code: `let sum = 0\nfor (let n = 1; n <= ${i}; n++) sum += n\nconsole.log(sum) // a long line, as models write them, that must scroll in its box rather than widen the page`,
        stdout: `${(i * (i + 1)) / 2}\n`,
        stderr: '',
        exit: 0,
        error: '',
        durationMs: 3 + (i % 7),
        timedOut: false,
      },
    ]
  }
  if (capability === 'can_query_api') {
    return [
      {
        type: 'search',
        query: `rail pass price ${i}`,
        sources: [
          { title: 'Japan Rail Pass: prices', url: 'https://example.com/jr-pass' },
          { title: 'Shinkansen timetable', url: 'https://example.org/timetable' },
        ],
      },
    ]
  }
  return null
}

const LEAF_STATUSES: SlotView['status'][] = [
  'done',
  'done',
  'done',
  'claimed',
  'open',
  'done',
  'waiting',
  'failed',
  'done',
]

interface Budget {
  left: number
  serial: number
}

function leaf(parent: string, index: number, text: string, budget: Budget): SlotView {
  const i = budget.serial++
  const status = LEAF_STATUSES[i % LEAF_STATUSES.length]!
  const taskStatus: TaskView['status'] =
    status === 'done'
      ? 'done'
      : status === 'failed'
        ? 'failed'
        : status === 'claimed'
          ? 'claimed'
          : 'open'
  const capability = (['can_write_text', 'can_run_code', 'can_query_api'] as const)[i % 3]!
  const output =
    status === 'done'
      ? `## Result ${i}\n\n- point one\n- point two\n\nDone by peer ${i % 12}.`
      : null
  return {
    index,
    text,
    dependsOn: status === 'waiting' && index > 0 ? [index - 1] : [],
    status,
    nodeId: `${parent}-n${index}`,
    atomic: true,
    capped: false,
    capability,
    reason: 'one concrete deliverable',
    tool: null,
    capabilityGap: null,
    noWorker: null,
    toolGap: null,
    blocked: false,
    why: status === 'failed' ? { kind: 'attempts', detail: 'the provider timed out' } : null,
    leaf: task(
      `${parent}-${index}`,
      taskStatus,
      i,
      output,
      output ? labSteps(capability, i) : null,
    ),
    superseded: [],
    redosLeft: 3,
    goal: null,
  }
}

function goal(
  id: string,
  text: string,
  depth: number,
  levels: number,
  branching: number,
  budget: Budget,
): GoalView {
  const i = budget.serial++
  const count = Math.min(branching, budget.left)
  budget.left -= count
  const slots: SlotView[] = []
  for (let s = 0; s < count; s++) {
    const childText = `${text.split(' / ')[0]} / ${depth + 1}.${s + 1}`
    if (depth + 1 < levels) {
      const child = goal(`${id}-${s}`, childText, depth + 1, levels, branching, budget)
      slots.push({
        ...leaf(id, s, childText, budget),
        status: 'active',
        atomic: false,
        leaf: null,
        goal: child,
        nodeId: child.id,
      })
    } else {
      slots.push(leaf(id, s, childText, budget))
    }
  }
  const settled = slots.length > 0 && slots.every((s) => s.status === 'done')
  const leaves = noLeaves()
  for (const slot of slots) {
    const below = slot.goal?.leaves
    leaves.total += below ? below.total : 1
    leaves.done += below ? below.done : slot.status === 'done' ? 1 : 0
    const failed = below ? below.failed : slot.status === 'failed' ? 1 : 0
    leaves.failed += failed
    leaves.failedBy.attempts += failed
  }
  return {
    id,
    text,
    createdAt: depth === 0 ? 1_700_000_000_000 : null,
    depth,
    status: slots.length === 0 ? 'awaiting-proposals' : settled ? 'done' : 'accepted',
    phase: slots.length === 0 ? 'awaiting-proposals' : settled ? 'complete' : 'running',
    leaves,
    cancelled: false,
    authorRemoved: false,
    createdBy: peer(i),
    createdByMember: null,
    paused: false,
    approvalMode: 'none',
    approval: 'none',
    vetoes: [],
    retired: [],
    vetoesLeft: 3,
    supersededRollup: null,
    outcome: settled ? 'complete' : null,
    failedParts: 0,
    usage: zeroRoleUsage(),
    missingCapabilities: [],
    missingTools: [],
    proposals: slots.length === 0 ? [] : proposals(id, text, slots.length, i),
    accepted:
      slots.length === 0
        ? null
        : { proposal: `${id}-p0`, basis: 'quorum', decidedBy: peer(i + 6), score: 0.825 },
    slots,
    rollup: task(
      `${id}-rollup`,
      settled ? 'done' : 'open',
      i,
      settled ? `Summary of ${text}` : null,
    ),
  }
}

/** A tree of exactly `nodes` nodes (root included), `levels` deep below the root. */
export function syntheticTree(nodes: number, branching = 6, levels = 4): PlanTree {
  // depth-first fills the first branches fully; the rest stay awaiting proposals, as in a live run
  const budget: Budget = { left: nodes - 1, serial: 0 }
  const root = goal('root', 'Plan a two-week trip to Japan', 0, levels, branching, budget)
  return {
    goals: [root],
    over: false,
    progress: { leaves: 0, leavesDone: 0, leavesFailed: 0, goals: 0 },
    roomUsage: zeroRoleUsage(),
  }
}
