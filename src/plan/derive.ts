/**
 * Everything a peer believes about the plan, derived from the record set by
 * pure rules. Two peers with the same records derive the same plan, whatever
 * order the records arrived in: every choice below sorts by a total order
 * (ids, epochs, rendezvous ranks), never by arrival.
 *
 * The plan is a tree grown top-down from root goals: a goal's winning
 * accept names its split; each subgoal of the split is classified by the
 * split's voters (classify.ts); a composite node is a child goal whose id
 * is the node id; an atomic node is a leaf with an execute task; a goal whose
 * subgoals have all settled gets a roll-up task.
 */
import { nodeId } from '../protocol/ids'
import type { GoalRecord, ProposalRecord, ScoreRecord } from '../protocol/records'
import { classifySubgoal, judgesEverySubgoal, splitVoters } from './classify'
import { acceptHolds } from './acceptance'
import { countedCancels, earliestAccept, goalAuthors, type GoalAuthors } from './authority'
import { countedRoots, GOAL_LIMITS } from './goal-limits'
import { countedView, type PlanMembership } from './members'
import type { PlanState } from './state'
import { goalSettings, needsApproval, redoChain, verdictOn, vetoRounds } from './steering'
import { authorised, bestOutput, deriveTask, type TaskState } from './tasks'
import type { DerivedGoal, DerivedPlan, DerivedSlot } from './derived-types'
import { settleGoal } from './settle'

export type { DerivedGoal, DerivedPlan, DerivedSlot, GoalStatus, SlotStatus } from './derived-types'

/**
 * One vote per scorer per proposal: if a scorer scored twice, its lowest-id
 * score counts. A score that does not judge every subgoal of its proposal,
 * one judgement each, is no vote (its judgements could not classify them).
 */
function collectVotes(proposals: readonly ProposalRecord[], scores: readonly ScoreRecord[]) {
  const votes = new Map<string, Map<string, ScoreRecord>>()
  const sizes = new Map<string, number>()
  for (const proposal of proposals) {
    votes.set(proposal.id, new Map())
    sizes.set(proposal.id, proposal.subgoals.length)
  }
  for (const score of scores) {
    const byScorer = votes.get(score.proposal)
    if (!byScorer || !judgesEverySubgoal(score, sizes.get(score.proposal)!)) continue
    const existing = byScorer.get(score.from)
    if (!existing || score.id < existing.id) byScorer.set(score.from, score)
  }
  const result = new Map<string, ScoreRecord[]>()
  for (const [proposal, byScorer] of votes) {
    result.set(
      proposal,
      [...byScorer.values()].sort((a, b) => (a.from < b.from ? -1 : 1)),
    )
  }
  return result
}

export interface DeriveOptions {
  /** the room's membership: without it every record counts, each PeerId an author */
  membership?: PlanMembership
}

/** Goal limits count per member when there is a membership, else per PeerId. */
function authorOf(membership: PlanMembership | undefined): ((from: string) => string) | undefined {
  return membership ? (from) => membership.memberOf(from) ?? from : undefined
}

interface GoalSeed {
  id: string
  text: string
  depth: number
  maxDepth: number
  root: GoalRecord
  parent: DerivedGoal | null
  index: number
  /** the root's author was removed before its tree settled: nothing under it runs */
  stopped: boolean
}

/**
 * `membership` (since version 7, opt-in; the runtime passes its room's):
 * only records whose author acts for an admitted member count, and goal
 * limits count per member (members.ts).
 */
export function derivePlan(held: PlanState, options: DeriveOptions = {}): DerivedPlan {
  const { membership } = options
  const plan = membership ? countedView(held, membership) : held
  const authors = goalAuthors(membership)
  const goals = new Map<string, DerivedGoal>()
  const tasks = new Map<string, TaskState>()
  // per-author limits (goal-limits.ts): a held root is never derived
  const { counted, held: waiting } = countedRoots(
    plan.roots.values(),
    (root) => {
      const status = deriveRoot(plan, root, goals, tasks, authors).status
      return status !== 'done' && status !== 'failed' && status !== 'cancelled'
    },
    GOAL_LIMITS,
    authorOf(membership),
  )
  // goals in breadth-first order over the roots oldest first, as roles walk them:
  // never in the order the authors' goals arrived
  const rootIndex = new Map(counted.map((root, index) => [root.id, index]))
  const ordered = new Map(
    [...goals.values()]
      .sort((a, b) => a.depth - b.depth || rootIndex.get(a.root)! - rootIndex.get(b.root)!)
      .map((goal) => [goal.id, goal]),
  )
  const orderedTasks = new Map<string, TaskState>()
  const leaves = new Map<string, { goal: DerivedGoal; slot: DerivedSlot }>()
  const rollups = new Map<string, DerivedGoal>()
  for (const goal of ordered.values()) {
    orderedTasks.set(goal.decide.id, goal.decide)
    orderedTasks.set(goal.rollup.id, goal.rollup)
    rollups.set(goal.rollup.id, goal)
    for (const slot of goal.slots) {
      if (!slot.execute) continue
      orderedTasks.set(slot.execute.id, slot.execute)
      leaves.set(slot.execute.id, { goal, slot })
    }
  }
  const holdings = new Map<string, number>()
  for (const task of orderedTasks.values()) {
    if (task.status !== 'claimed' || !task.holder || task.released) continue
    holdings.set(task.holder.from, (holdings.get(task.holder.from) ?? 0) + 1)
  }
  return {
    version: plan.version,
    goals: ordered,
    roots: counted.map((root) => root.id),
    held: waiting.map((root) => root.id),
    heldBy: new Map(waiting.map((root) => [root.id, root.from])),
    tasks: orderedTasks,
    rollups,
    leaves,
    holdings,
  }
}

/**
 * Whether a new root goal would be held by the limits per author if added to
 * `plan` now: a tab asks before it publishes its person's goal, so that a
 * goal over the limits is refused with a reason instead of waiting unseen.
 */
export function wouldBeHeld(
  source: PlanState,
  goal: GoalRecord,
  options: DeriveOptions = {},
): boolean {
  const plan = options.membership ? countedView(source, options.membership) : source
  const authors = goalAuthors(options.membership)
  const { held } = countedRoots(
    [...plan.roots.values(), goal],
    (root) => {
      if (root.id === goal.id) return true
      const status = deriveRoot(plan, root, new Map(), new Map(), authors).status
      return status !== 'done' && status !== 'failed' && status !== 'cancelled'
    },
    GOAL_LIMITS,
    authorOf(options.membership),
  )
  return held.some((root) => root.id === goal.id)
}

const settled = (status: string) =>
  status === 'done' || status === 'failed' || status === 'cancelled'

/**
 * Derive the tree under one root goal into `goals` and `tasks`; returns the
 * root. A root whose author acts for a removed member (since version 8) and
 * whose tree has not settled is stopped: cancelled, its author removed, so
 * no peer spends a key on it any more (the author cannot read the room, and
 * removal means they stop spending the room's keys). One settled before
 * stays as it was.
 */
function deriveRoot(
  plan: PlanState,
  root: GoalRecord,
  goals: Map<string, DerivedGoal>,
  tasks: Map<string, TaskState>,
  authors: GoalAuthors,
): DerivedGoal {
  const stopped =
    authors.removed(root.from) &&
    !settled(deriveTree(plan, root, new Map(), new Map(), authors, false).status)
  return deriveTree(plan, root, goals, tasks, authors, stopped)
}

function deriveTree(
  plan: PlanState,
  root: GoalRecord,
  goals: Map<string, DerivedGoal>,
  tasks: Map<string, TaskState>,
  authors: GoalAuthors,
  stopped: boolean,
): DerivedGoal {
  const tree: DerivedGoal[] = []
  const queue: GoalSeed[] = [
    {
      id: root.id,
      text: root.text,
      depth: 0,
      maxDepth: root.maxDepth,
      root,
      parent: null,
      index: -1,
      stopped,
    },
  ]
  // breadth-first, so a parent is always derived before its children
  for (let next = queue.shift(); next; next = queue.shift()) {
    if (goals.has(next.id)) continue
    const goal = deriveGoal(plan, next, tasks, authors)
    goals.set(goal.id, goal)
    tree.push(goal)
    for (const slot of goal.slots) {
      if (slot.child) {
        queue.push({
          id: slot.child,
          text: slot.text,
          depth: goal.depth + 1,
          maxDepth: goal.maxDepth,
          root: next.root,
          parent: goal,
          index: slot.index,
          stopped,
        })
      }
    }
  }
  // statuses need children first: settle bottom-up
  for (const goal of tree.sort((a, b) => b.depth - a.depth)) settleGoal(plan, goal, goals, tasks)
  return goals.get(root.id)!
}

function deriveGoal(
  plan: PlanState,
  seed: GoalSeed,
  tasks: Map<string, TaskState>,
  { actsFor, memberOf }: GoalAuthors,
): DerivedGoal {
  const records = plan.goalRecords(seed.id)
  // the root's author steers and cancels: any PeerId that acts for it (authority.ts)
  const author = seed.root.from
  const all = records.proposals
    .filter((proposal) => proposal.goal === seed.id)
    .sort((a, b) => (a.id < b.id ? -1 : 1))
  const decide = deriveTask(plan, 'decide', seed.id)
  const rollup = deriveTask(plan, 'rollup', seed.id)
  tasks.set(decide.id, decide)
  const settings = goalSettings(seed.root, plan.goalRecords(seed.root.id).steers, actsFor)
  // the earliest decision stands (authority.ts); a veto of it sends the goal
  // back to the decomposers without the proposals it lists (steering.ts)
  const allVotes = collectVotes(all, records.scores)
  // closures passed inline: tsx names each named one as it is made, on every derivation
  const rounds = vetoRounds(
    records.verdicts,
    author,
    (proposal) =>
      records.accepts.some(
        (a) => a.proposal === proposal && authorised(decide, a) && acceptHolds(a, allVotes),
      ),
    (retired) => {
      const live = all.filter((proposal) => !retired.has(proposal.id))
      // nothing retired (the usual case): the same votes as allVotes, not collected again
      const votes = live.length === all.length ? allVotes : collectVotes(live, records.scores)
      const liveIds = new Set(live.map((proposal) => proposal.id))
      return earliestAccept(
        decide.id,
        records.accepts.filter((a) => liveIds.has(a.proposal) && acceptHolds(a, votes)),
        (a) => authorised(decide, a),
      )
    },
    actsFor,
  )
  const proposals = all.filter((proposal) => !rounds.retired.has(proposal.id))
  const votes = proposals.length === all.length ? allVotes : collectVotes(proposals, records.scores)
  const accept = rounds.accept
  const proposalById = new Map(all.map((proposal) => [proposal.id, proposal]))
  const accepted = accept ? (proposalById.get(accept.proposal) ?? null) : null
  decide.unclaimedOutputs += records.accepts.filter((a) => !authorised(decide, a)).length
  const cancelled =
    seed.stopped ||
    (seed.parent?.cancelled ?? false) ||
    countedCancels(records.cancels, author, actsFor).length > 0
  const gated = accepted !== null && needsApproval(settings.approve, seed.depth)
  const verdict = accepted ? verdictOn(records.verdicts, author, accepted.id, actsFor) : null
  const goal: DerivedGoal = {
    id: seed.id,
    text: seed.text,
    depth: seed.depth,
    maxDepth: seed.maxDepth,
    root: seed.root.id,
    parent: seed.parent ? { goal: seed.parent.id, index: seed.index } : null,
    path: [...(seed.parent?.path ?? []), seed.text],
    createdBy: author,
    createdByMember: memberOf(author) ?? null,
    createdAt: seed.root.createdAt,
    cancelled,
    authorRemoved: seed.stopped,
    paused: settings.paused,
    approvalMode: settings.approve,
    // an approval given counts even if the mode was switched off since
    approval: verdict?.approve ? 'approved' : gated ? 'waiting' : 'none',
    vetoes: rounds.vetoes.map((veto) => ({
      verdict: veto,
      proposal: proposalById.get(veto.proposal) ?? null,
    })),
    retired: all.filter((proposal) => rounds.retired.has(proposal.id)),
    proposals,
    votes,
    decide,
    accept,
    accepted,
    slots: [],
    rollup,
    supersededRollup: null,
    redos: [],
    status: 'awaiting-proposals',
  }
  if (accepted && accept) {
    // classified by the split's voters: the counted votes cited by the latest
    // lease holder's accept of this split (as outputs count, tasks.ts): a
    // takeover's accept, published because the first never left its crashed
    // author, keeps classifying when that first one surfaces later
    const classifier =
      bestOutput(
        decide,
        records.accepts.filter((a) => a.proposal === accepted.id && acceptHolds(a, votes)),
      ) ?? accept
    const voters = splitVoters(classifier, votes.get(accepted.id) ?? [])
    const atCap = seed.depth + 1 >= seed.maxDepth
    goal.slots = accepted.subgoals.map((subgoal, index) => {
      const classification = classifySubgoal(voters, index, atCap)
      const slot: DerivedSlot = {
        goal: seed.id,
        index,
        text: subgoal.text,
        dependsOn: subgoal.dependsOn,
        classification,
        id: nodeId(seed.id, accepted.id, index, subgoal.text, classification.atomic),
        atomic: classification.atomic,
        capability: classification.capability,
        tool: classification.tool,
        execute: null,
        superseded: [],
        child: null,
        blocked: false,
        status: 'open',
        output: null,
      }
      // a split waiting for its author's approval is classified, but nothing under it runs
      if (goal.approval === 'waiting') return slot
      if (classification.atomic) {
        const chain = redoChain(
          deriveTask(plan, 'execute', slot.id!),
          author,
          (subject) => deriveTask(plan, 'execute', subject),
          (task) => plan.taskRecords(task).redos,
          actsFor,
        )
        slot.execute = chain.current
        slot.superseded = chain.superseded
        tasks.set(slot.execute.id, slot.execute)
      } else {
        slot.child = slot.id
      }
      return slot
    })
  }
  return goal
}

/** Every subgoal settled (done or failed): the goal can be rolled up. */
export function readyToRollUp(goal: DerivedGoal): boolean {
  return (
    goal.accepted !== null &&
    goal.approval !== 'waiting' &&
    !goal.cancelled &&
    goal.slots.length > 0 &&
    goal.slots.every((slot) => slot.status === 'done' || slot.status === 'failed')
  )
}

/** Dependencies of a leaf, with their outputs, once all are done; null while any is not. */
export function dependencyOutputs(
  goal: DerivedGoal,
  slot: DerivedSlot,
): { text: string; output: string }[] | null {
  const outputs: { text: string; output: string }[] = []
  for (const dep of slot.dependsOn) {
    const sibling = goal.slots[dep]
    if (!sibling || sibling.status !== 'done' || sibling.output === null) return null
    outputs.push({ text: sibling.text, output: sibling.output })
  }
  return outputs
}
