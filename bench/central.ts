/**
 * The centralized orchestrator: one process that makes the same LLM calls as
 * the swarm, with the same concurrency, and nothing else. It follows the
 * protocol's flow with in-memory function calls instead of gossip:
 *
 *   decompose (several proposals) → score them → accept the first proposal
 *   with QUORUM_VOTES votes >= QUORUM_SCORE → classify every subgoal →
 *   composite subgoals become child goals (recursively), atomic ones (or any
 *   at the depth cap) are executed once their dependencies are done → when
 *   every subgoal of a goal has settled, roll it up.
 *
 * Each kind of call goes through the pool of the role that makes it in the
 * swarm (decompose: decomposers; score and classify: scorers; execute and
 * roll-up: executors), each pool as large as the swarm's (peers of the role ×
 * per-peer capacity). As in the swarm, where a scorer that decides a goal
 * starts its classify calls without waiting for a free slot (see
 * src/roles/claims.ts), classify calls never queue but do hold slots.
 *
 * How many proposals each goal gets and how many score calls are made for
 * each come from a budget: the benchmark fills it with what the swarm did,
 * so both sides make the same calls. Score calls still running when their
 * goal is decided are aborted, as the swarm's scorers abort theirs; score
 * calls of a decided goal that had not started yet are not made (the swarm's
 * scorers would not start them either); the benchmark prints any difference.
 */
import type { LlmOutcome, LlmTask, SubgoalDraft } from '../src/llm/types'
import { QUORUM_SCORE, QUORUM_VOTES, MAX_TASK_ATTEMPTS } from '../src/protocol/rules'
import { PATH_SEPARATOR } from './calls'
import { Pool } from './pool'

export type LlmRunner = (task: LlmTask, signal?: AbortSignal) => Promise<LlmOutcome>

export interface GoalRef {
  /** the goal's path from the root, joined with PATH_SEPARATOR */
  key: string
  depth: number
}

export interface CallBudget {
  /** decompose calls (proposals asked for) for this goal */
  proposals(goal: GoalRef): number
  /**
   * score calls for this goal, per proposal, most first: the k-th proposal
   * to arrive gets the k-th count (the swarm's votes go mostly to the
   * splits it saw first)
   */
  scores(goal: GoalRef): readonly number[]
}

export interface CentralInit {
  roots: { text: string; maxDepth: number }[]
  pools: { decomposer: number; scorer: number; executor: number }
  budget: CallBudget
  llm: LlmRunner
  /**
   * A plain planner (what a plan-and-execute user gets, e.g. LangGraph's):
   * one decomposition per goal, taken as it is, no competing proposals and
   * no scoring. The budget is not used.
   */
  plain?: boolean
}

export interface CentralGoalResult {
  text: string
  ok: boolean
  output: string
}

/** The budget of a swarm that works as the protocol says, with no losses. */
export function protocolBudget(proposals: number, scoresPerProposal: number): CallBudget {
  return {
    proposals: () => proposals,
    scores: () => Array.from({ length: proposals }, () => scoresPerProposal),
  }
}

interface Proposal {
  subgoals: SubgoalDraft[]
  rationale: string
  votes: number[]
}

/** The acceptance rule: the first proposal with QUORUM_VOTES votes of at least QUORUM_SCORE. */
export function hasQuorum(votes: readonly number[]): boolean {
  return votes.filter((score) => score >= QUORUM_SCORE).length >= QUORUM_VOTES
}

/** With every vote in and no quorum: the best mean among proposals with QUORUM_VOTES votes. */
export function bestByMean<P extends { votes: number[] }>(proposals: readonly P[]): P | null {
  let best: P | null = null
  let bestMean = -Infinity
  for (const proposal of proposals) {
    if (proposal.votes.length < QUORUM_VOTES) continue
    const mean = proposal.votes.reduce((a, b) => a + b, 0) / proposal.votes.length
    if (mean > bestMean) {
      best = proposal
      bestMean = mean
    }
  }
  return best
}

const NOT_DONE = '(not done: this part failed or was cancelled)'

export async function runCentral(init: CentralInit): Promise<CentralGoalResult[]> {
  const pools = {
    decomposer: new Pool(init.pools.decomposer),
    scorer: new Pool(init.pools.scorer),
    executor: new Pool(init.pools.executor),
  }
  const { llm, budget } = init

  /** The plain planner's split: one decomposition (tried up to MAX_TASK_ATTEMPTS times). */
  async function plan(path: string[], depth: number, maxDepth: number): Promise<Proposal | null> {
    for (let attempt = 0; attempt < MAX_TASK_ATTEMPTS; attempt++) {
      const outcome = await pools.decomposer.run(() =>
        llm({ kind: 'decompose', path, depth, maxDepth }),
      )
      if (outcome.ok && outcome.kind === 'decompose') {
        const value = outcome.value as { subgoals: SubgoalDraft[]; rationale: string }
        return { subgoals: value.subgoals, rationale: value.rationale, votes: [] }
      }
    }
    return null
  }

  /** Decompose, score, accept: the accepted split, or null when the goal cannot be split. */
  async function decide(path: string[], depth: number, maxDepth: number): Promise<Proposal | null> {
    if (init.plain) return plan(path, depth, maxDepth)
    const ref: GoalRef = { key: path.join(PATH_SEPARATOR), depth }
    const wanted = budget.proposals(ref)
    const shares = budget.scores(ref)
    const decided = new AbortController()
    const proposals: Proposal[] = []
    let accepted: Proposal | null = null
    const scoring: Promise<void>[] = []

    const score = async (proposal: Proposal) => {
      if (decided.signal.aborted) return
      const outcome = await pools.scorer
        .run(() =>
          decided.signal.aborted
            ? Promise.resolve(null)
            : llm(
                { kind: 'score', path, subgoals: proposal.subgoals, rationale: proposal.rationale },
                decided.signal,
              ),
        )
        .catch(() => null) // aborted: the goal was decided meanwhile
      if (!outcome || !outcome.ok || outcome.kind !== 'score' || decided.signal.aborted) return
      proposal.votes.push(Math.min(1, Math.max(0, (outcome.value as { score: number }).score)))
      if (hasQuorum(proposal.votes)) {
        accepted = proposal
        decided.abort()
      }
    }

    const decompositions = Array.from({ length: wanted }, () =>
      pools.decomposer
        .run(() =>
          decided.signal.aborted
            ? Promise.resolve(null)
            : llm({ kind: 'decompose', path, depth, maxDepth }, decided.signal),
        )
        .catch(() => null) // aborted: the goal was decided meanwhile
        .then((outcome) => {
          if (!outcome || !outcome.ok || outcome.kind !== 'decompose' || decided.signal.aborted)
            return
          const value = outcome.value as { subgoals: SubgoalDraft[]; rationale: string }
          const proposal: Proposal = {
            subgoals: value.subgoals,
            rationale: value.rationale,
            votes: [],
          }
          const share = shares[proposals.length] ?? 0
          proposals.push(proposal)
          for (let i = 0; i < share; i++) scoring.push(score(proposal))
        }),
    )
    // decided at the first quorum, or once every proposal and vote is in
    const everything = Promise.all(decompositions).then(() => Promise.all(scoring))
    const quorum = new Promise<void>((resolve) =>
      decided.signal.addEventListener('abort', () => resolve(), { once: true }),
    )
    await Promise.race([everything, quorum])
    return accepted ?? bestByMean(proposals)
  }

  /** Run one goal to its roll-up; resolves with its output (null: it failed). */
  async function goal(path: string[], depth: number, maxDepth: number): Promise<string | null> {
    const split = await decide(path, depth, maxDepth)
    if (!split) return null
    const subgoals = split.subgoals
    const outputs: Array<Promise<string | null>> = []
    for (let index = 0; index < subgoals.length; index++) {
      const subgoal = subgoals[index]!
      // like the swarm's deciding scorer: no waiting for a free slot, but the call holds one
      const classified = pools.scorer.runNow(() =>
        llm({
          kind: 'classify',
          path,
          subgoal: subgoal.text,
          siblings: subgoals.filter((_, i) => i !== index).map((s) => s.text),
          depth: depth + 1,
          maxDepth,
        }),
      )
      outputs.push(
        classified.then(async (outcome) => {
          if (!outcome.ok || outcome.kind !== 'classify') return null
          const atomic = depth + 1 >= maxDepth || (outcome.value as { atomic: boolean }).atomic
          if (!atomic) return goal([...path, subgoal.text], depth + 1, maxDepth)
          // a leaf runs once its dependencies (earlier siblings) are done
          const dependencies: { text: string; output: string }[] = []
          for (const dep of subgoal.dependsOn) {
            const output = await outputs[dep]
            if (output === null || output === undefined) return null
            dependencies.push({ text: subgoals[dep]!.text, output })
          }
          const capability = (outcome.value as { capability: 'can_write_text' }).capability
          for (let attempt = 0; attempt < MAX_TASK_ATTEMPTS; attempt++) {
            const result = await pools.executor.run(() =>
              llm({ kind: 'execute', path, task: subgoal.text, capability, dependencies }),
            )
            if (result.ok && result.kind === 'execute')
              return (result.value as { output: string }).output
          }
          return null
        }),
      )
    }
    const settled = await Promise.all(outputs)
    const parts = subgoals.map((subgoal, i) => ({
      text: subgoal.text,
      output: settled[i] ?? NOT_DONE,
    }))
    for (let attempt = 0; attempt < MAX_TASK_ATTEMPTS; attempt++) {
      const result = await pools.executor.run(() => llm({ kind: 'rollup', path, parts }))
      if (result.ok && result.kind === 'rollup') return (result.value as { output: string }).output
    }
    return null
  }

  return Promise.all(
    init.roots.map(async (root) => {
      const output = await goal([root.text], 0, root.maxDepth)
      return { text: root.text, ok: output !== null, output: output ?? '' }
    }),
  )
}
