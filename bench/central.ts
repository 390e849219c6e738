/**
 * The centralized orchestrator: one process that makes the same LLM calls as
 * the swarm, with the same concurrency, and nothing else. It follows the
 * protocol's flow with in-memory function calls instead of gossip:
 *
 *   decompose (several proposals) → score them (each score judges every
 *   subgoal) → accept the first proposal with QUORUM_VOTES votes >=
 *   QUORUM_SCORE, its subgoals classified by those votes (plan/classify.ts)
 *   → composite subgoals become child goals (recursively), atomic ones (or
 *   any at the depth cap) are executed once their dependencies are done →
 *   when every subgoal of a goal has settled, roll it up.
 *
 * Each kind of call goes through the pool of the role that makes it in the
 * swarm (decompose: decomposers; score: scorers; execute and roll-up:
 * executors), each pool as large as the swarm's (peers of the role ×
 * per-peer capacity).
 *
 * How many proposals each goal gets and how many score calls are made for
 * each come from a budget: the benchmark fills it with what the swarm did,
 * so both sides make the same calls. Score calls still running when their
 * goal is decided are aborted, as the swarm's scorers abort theirs; score
 * calls of a decided goal that had not started yet are not made (the swarm's
 * scorers would not start them either); the benchmark prints any difference.
 */
import type { Capability, LlmOutcome, LlmOutputs, LlmTask, SubgoalDraft } from '../src/llm/types'
import { classifySubgoal, judgingOrder } from '../src/plan/classify'
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
  /**
   * What the room's executors offer, as the swarm's decompose and score
   * prompts said it: the orchestrator's prompts must be the very same, or
   * a persona's draws (seeded by the prompt: latency, habits) differ from
   * the swarm's, and so do the calls made. None: its prompts say nothing.
   */
  room?: readonly Capability[]
}

export interface CentralInit {
  roots: { text: string; maxDepth: number }[]
  pools: { decomposer: number; scorer: number; executor: number }
  budget: CallBudget
  llm: LlmRunner
  /**
   * A plain planner (what a plan-and-execute user gets, e.g. LangGraph's):
   * one decomposition per goal, taken as it is, no competing proposals and
   * no voting: one score call judges its subgoals (its score is not used).
   * The budget is not used.
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

interface Vote {
  score: number
  judgements: LlmOutputs['score']['judgements']
  /** the order votes came in: breaks ties as a score id would */
  id: string
}

interface Proposal {
  subgoals: SubgoalDraft[]
  rationale: string
  votes: number[]
  /** the votes with their judgements of each subgoal */
  ballots: Vote[]
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

/** The swarm's prompts name the room's executors when they are known (CallBudget.room). */
function roomOf(room: readonly Capability[] | undefined): { roomCapabilities?: Capability[] } {
  return room ? { roomCapabilities: [...room] } : {}
}

function scoreTask(
  path: string[],
  depth: number,
  maxDepth: number,
  proposal: Proposal,
  room?: readonly Capability[],
): LlmTask {
  const { subgoals, rationale } = proposal
  return { kind: 'score', path, subgoals, rationale, depth: depth + 1, maxDepth, ...roomOf(room) }
}

/** A vote counts only with one judgement per subgoal, as in the swarm (plan/derive.ts). */
function addVote(proposal: Proposal, value: LlmOutputs['score']): void {
  if (value.judgements.length !== proposal.subgoals.length) return
  const score = Math.min(1, Math.max(0, value.score))
  proposal.votes.push(score)
  const id = String(proposal.ballots.length).padStart(4, '0')
  proposal.ballots.push({ score, judgements: value.judgements, id })
}

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
        llm({ kind: 'decompose', path, depth, maxDepth, ...roomOf(budget.room) }),
      )
      if (outcome.ok && outcome.kind === 'decompose') {
        const value = outcome.value as { subgoals: SubgoalDraft[]; rationale: string }
        const proposal: Proposal = { ...value, votes: [], ballots: [] }
        // one call judges its subgoals (no vote: its score is not used)
        for (let judged = 0; judged < MAX_TASK_ATTEMPTS; judged++) {
          const judge = await pools.scorer.run(() =>
            llm(scoreTask(path, depth, maxDepth, proposal, budget.room)),
          )
          if (judge.ok && judge.kind === 'score') {
            addVote(proposal, judge.value as LlmOutputs['score'])
            return proposal
          }
        }
        return null
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
            : llm(scoreTask(path, depth, maxDepth, proposal, budget.room), decided.signal),
        )
        .catch(() => null) // aborted: the goal was decided meanwhile
      if (!outcome || !outcome.ok || outcome.kind !== 'score' || decided.signal.aborted) return
      addVote(proposal, outcome.value as LlmOutputs['score'])
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
            : llm(
                { kind: 'decompose', path, depth, maxDepth, ...roomOf(budget.room) },
                decided.signal,
              ),
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
            ballots: [],
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
    // classified by the split's voters, as every swarm peer derives it
    const voters = [...split.ballots].sort(judgingOrder)
    for (let index = 0; index < subgoals.length; index++) {
      const subgoal = subgoals[index]!
      const { atomic, capability } = classifySubgoal(voters, index, depth + 1 >= maxDepth)
      outputs.push(
        (async () => {
          if (!atomic) return goal([...path, subgoal.text], depth + 1, maxDepth)
          // a leaf runs once its dependencies (earlier siblings) are done
          const dependencies: { text: string; output: string }[] = []
          for (const dep of subgoal.dependsOn) {
            const output = await outputs[dep]
            if (output === null || output === undefined) return null
            dependencies.push({ text: subgoals[dep]!.text, output })
          }
          for (let attempt = 0; attempt < MAX_TASK_ATTEMPTS; attempt++) {
            const result = await pools.executor.run(() =>
              llm({ kind: 'execute', path, task: subgoal.text, capability, dependencies }),
            )
            if (result.ok && result.kind === 'execute')
              return (result.value as { output: string }).output
          }
          return null
        })(),
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
