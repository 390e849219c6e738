/**
 * Test vectors for the classification of an accepted split by its voters
 * (PROTOCOL §5.1, since version 7): a split of three subgoals, three votes
 * with their judgements, an accept citing two of them, and what every peer
 * derives: per subgoal, atomic or not, capped, the capability and the node
 * id. Subgoal 0 is a tie of the two cited voters (the better score's
 * judgement wins: composite), subgoal 1 composite by both, subgoal 2 atomic
 * by both with a capability tie (again the better score's). The third vote,
 * all atomic, is not cited, so it changes nothing. (The depth cap is in the
 * unit tests, src/plan/classify.test.ts.)
 */
import { derivePlan } from '../../src/plan/derive'
import { PlanState } from '../../src/plan/state'
import {
  newGoal,
  stamp,
  type AcceptRecord,
  type ClaimRecord,
  type Judgement,
  type PlanRecord,
  type ProposalRecord,
  type ScoreRecord,
} from '../../src/protocol/records'
import { taskId } from '../../src/protocol/ids'

const USAGE = {
  provider: 'offline',
  model: 'offline-v1',
  inputTokens: 90,
  outputTokens: 60,
  offline: true,
}
const T0 = 1_700_000_200_000
const j = (atomic: boolean, capability: Judgement['capability']): Judgement => ({
  atomic,
  capability,
})

export function classificationVectors(room: string, author: string, scorers: readonly string[]) {
  const goal = newGoal(room, author, 'Plan a picnic', T0, 2)
  const proposal = stamp<ProposalRecord>({
    room,
    from: author,
    kind: 'proposal',
    goal: goal.id,
    subgoals: [
      { text: 'Choose the park', dependsOn: [] },
      { text: 'Plan the food and drinks', dependsOn: [] },
      { text: 'Check the weather forecast', dependsOn: [0] },
    ],
    rationale: 'Place, food, weather.',
    usage: USAGE,
  })
  const judged: [number, Judgement[]][] = [
    [0.9, [j(false, 'can_write_text'), j(false, 'can_write_text'), j(true, 'can_query_api')]],
    [0.7, [j(true, 'can_write_text'), j(false, 'can_write_text'), j(true, 'can_write_text')]],
    [0.8, [j(true, 'can_write_text'), j(true, 'can_write_text'), j(true, 'can_write_text')]],
  ]
  const votes = judged.map(([score, judgements], i) =>
    stamp<ScoreRecord>({
      room,
      from: scorers[i]!,
      kind: 'score',
      goal: goal.id,
      proposal: proposal.id,
      score,
      notes: '',
      judgements,
      usage: USAGE,
    }),
  )
  const claim = stamp<ClaimRecord>({
    room,
    from: scorers[0]!,
    kind: 'claim',
    task: taskId('decide', goal.id),
    taskType: 'decide',
    subject: goal.id,
    epoch: 0,
    at: T0 + 1_000,
  })
  // the first two votes are the quorum; the third came later and is not cited
  const accept = stamp<AcceptRecord>({
    room,
    from: scorers[0]!,
    kind: 'accept',
    goal: goal.id,
    proposal: proposal.id,
    basis: 'quorum',
    votes: [votes[0]!.id, votes[1]!.id].sort(),
    epoch: 0,
  })
  const records: PlanRecord[] = [goal, proposal, ...votes, claim, accept]
  const state = new PlanState()
  for (const record of records) state.add(record)
  const derived = derivePlan(state).goals.get(goal.id)!
  return {
    records,
    slots: derived.slots.map((slot) => ({
      index: slot.index,
      atomic: slot.atomic,
      capped: slot.classification!.capped,
      capability: slot.capability,
      nodeId: slot.id,
      task: slot.execute?.id ?? null,
      childGoal: slot.child,
    })),
  }
}
