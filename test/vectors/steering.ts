/**
 * Known answers for a goal's author steering it (docs/PROTOCOL.md §5.12): one
 * small plan, every record spelled out, in which the author approved the
 * root's split, sent one leaf back twice (a redo chain), vetoed a child
 * goal's first split and sent a leaf of its second split back. The vector
 * gives the execute tasks of the chain and the roll-up subjects and tasks
 * that the redos and the veto rename, as derivePlan computes them; a peer
 * written elsewhere loads the records and must derive the same ids.
 */
import { derivePlan } from '../../src/plan/derive'
import { PlanState } from '../../src/plan/state'
import { canonicalJson } from '../../src/protocol/canonical'
import { nodeId, taskId } from '../../src/protocol/ids'
import {
  newGoal,
  newRedo,
  newSteer,
  newVerdict,
  stamp,
  type AcceptRecord,
  type ClaimRecord,
  type PlanRecord,
  type ProposalRecord,
  type ResultRecord,
  type ScoreRecord,
} from '../../src/protocol/records'

const USAGE = {
  provider: 'offline',
  model: 'offline-v1',
  inputTokens: 120,
  outputTokens: 80,
  offline: true,
}
/** Times of the scenario: a second apart, after the other vectors' records. */
const T0 = 1_700_000_100_000
const at = (seconds: number) => T0 + seconds * 1_000
/** How a subgoal is classified: the first needs live data, the second prose. */
const judgement = (atomic: boolean, index: number) => ({
  atomic,
  capability: index === 0 ? ('can_query_api' as const) : ('can_write_text' as const),
})

/**
 * The steering scenario in room `room`: `author` wrote the root goal and did
 * everything but the second vote of each split, which is `scorer`'s (an
 * accept needs two distinct scorers, §5.1).
 */
export function steeringVectors(room: string, author: string, scorer: string) {
  const records: PlanRecord[] = []
  const add = <R extends PlanRecord>(record: R): R => {
    records.push(record)
    return record
  }
  const base = { room, from: author }
  // the root asks for its split to wait for the author's approval (goal.approve)
  const root = add(newGoal(room, author, 'Plan a weekend in Kyoto', T0, 3, 'root'))
  const steer = add(newSteer(room, author, root.id, false, 'root', at(1)))

  /** A split of `goal`, voted for by both scorers, claimed and accepted by the author at epoch 0. */
  const split = (
    goal: string,
    texts: [string, string],
    atomic: [boolean, boolean],
    second: number,
    claim: boolean,
  ) => {
    const proposal = add(
      stamp<ProposalRecord>({
        ...base,
        kind: 'proposal',
        goal,
        subgoals: texts.map((text) => ({ text, dependsOn: [] })),
        rationale: 'Two independent parts.',
        usage: USAGE,
      }),
    )
    const votes = [author, scorer].map((from, i) =>
      add(
        stamp<ScoreRecord>({
          room,
          from,
          kind: 'score',
          goal,
          proposal: proposal.id,
          score: i === 0 ? 0.8 : 0.7,
          notes: '',
          // both voters judge alike: the first subgoal needs live data, the second prose
          judgements: atomic.map(judgement),
          usage: USAGE,
        }),
      ),
    )
    if (claim) {
      add(
        stamp<ClaimRecord>({
          ...base,
          kind: 'claim',
          task: taskId('decide', goal),
          taskType: 'decide',
          subject: goal,
          epoch: 0,
          at: at(second),
        }),
      )
    }
    add(
      stamp<AcceptRecord>({
        ...base,
        kind: 'accept',
        goal,
        proposal: proposal.id,
        basis: 'quorum',
        votes: votes.map((vote) => vote.id).sort(),
        epoch: 0,
      }),
    )
    return proposal
  }
  /** The author claims execute task `task` (of `subject`) at epoch 0 and publishes its result. */
  const execute = (
    subject: string,
    output: string,
    second: number,
    steps?: ResultRecord['steps'],
  ) => {
    const task = taskId('execute', subject)
    add(
      stamp<ClaimRecord>({
        ...base,
        kind: 'claim',
        task,
        taskType: 'execute',
        subject,
        epoch: 0,
        at: at(second),
      }),
    )
    const result = add(
      stamp<ResultRecord>({
        ...base,
        kind: 'result',
        task,
        epoch: 0,
        output,
        usage: USAGE,
        ...(steps ? { steps } : {}),
      }),
    )
    return { task, result }
  }

  const rootTexts: [string, string] = ['Book the train to Kyoto', 'Plan the two days']
  const rootSplit = split(root.id, rootTexts, [true, false], 2, true)
  const approval = add(
    newVerdict(room, author, { goal: root.id, proposal: rootSplit.id, approve: true }, at(3)),
  )
  const leaf = nodeId(root.id, rootSplit.id, 0, rootTexts[0], true)
  const child = nodeId(root.id, rootSplit.id, 1, rootTexts[1], false)

  // the leaf, done, sent back twice: a chain of three execute tasks (result.steps on the first)
  const first = execute(leaf, 'Take the Nozomi from Tokyo: about 2 h 15 min.', 4, [
    {
      type: 'search',
      query: 'Tokyo to Kyoto shinkansen time',
      sources: [{ title: 'Tokaido Shinkansen', url: 'https://example.org/tokaido' }],
    },
    {
      type: 'code',
      language: 'javascript',
      code: 'console.log(135 / 60)',
      stdout: '2.25\n',
      stderr: '',
      exit: 0,
      error: '',
      durationMs: 12,
      timedOut: false,
    },
    { type: 'knowledge' },
  ])
  const redo1 = add(newRedo(room, author, first.task, 'Leave on Friday evening', at(5)))
  const second = execute(redo1.id, 'Take the 18:00 Nozomi on Friday.', 6)
  const redo2 = add(newRedo(room, author, second.task, 'Reserve seats', at(7)))

  // the child goal: its first split vetoed, its second accepted and one leaf sent back
  const childFirst = split(
    child,
    ['See the temples of Higashiyama', 'Visit every shrine'],
    [true, true],
    8,
    true,
  )
  const veto = add(
    newVerdict(
      room,
      author,
      { goal: child, proposal: childFirst.id, approve: false, note: 'Fewer temples' },
      at(9),
    ),
  )
  const childTexts: [string, string] = ['Day one: Gion and Kiyomizu-dera', 'Day two: Arashiyama']
  const childSplit = split(child, childTexts, [true, true], 10, false)
  const childLeaf = nodeId(child, childSplit.id, 0, childTexts[0], true)
  const childRun = execute(childLeaf, 'Morning in Gion, afternoon at Kiyomizu-dera.', 11)
  add(newRedo(room, author, childRun.task, 'Add opening hours', at(12)))

  // what the reference derives from these records
  const plan = derivePlan(stateOf(records))
  const chain = plan.goals.get(root.id)!.slots[0]!
  const rollup = (goal: string) => {
    const derived = plan.goals.get(goal)!
    const renamers = [...derived.redos].sort()
    return {
      goal,
      renamers,
      input: canonicalJson(['rollup', goal, ...renamers]),
      subject: derived.rollup.subject,
      task: derived.rollup.id,
    }
  }
  return {
    signed: { root, steer, approval, veto, result: first.result, redo1, redo2 },
    vector: {
      about:
        '§5.12: these records derive a redo chain (execute task ids) and renamed roll-ups; ' +
        'renamers = the counted vetoes and redos of the goal and of every goal below it, ' +
        'flattened into one list and sorted; subject = contentId(["rollup", goal, ...renamers])',
      records,
      redoChain: {
        leaf,
        tasks: [
          { subject: leaf, id: first.task, redo: redo1.id },
          { subject: redo1.id, id: second.task, redo: redo2.id },
          { subject: redo2.id, id: taskId('execute', redo2.id), redo: null },
        ],
        current: chain.execute!.id,
      },
      childGoal: child,
      vetoed: veto.id,
      rollups: [rollup(child), rollup(root.id)],
    },
  }
}

function stateOf(records: readonly PlanRecord[]): PlanState {
  const state = new PlanState()
  for (const record of records) state.add(record)
  return state
}
