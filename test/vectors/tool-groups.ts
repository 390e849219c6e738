/**
 * Test vectors for tool groups (PROTOCOL §3.3, §3.4, §5.1, §5.4, since
 * version 8): an executor's presence beat announcing one group, a split of
 * two subgoals whose two cited voters judge the first to need that group
 * (the second: no group by one voter, a group by the other, the better
 * score's choice wins: none), the derived slots with their `tool`, and a
 * result carrying a tool step and a refused one. Every record as signed by
 * the vectors' key (canonical body and id; the records section shows the
 * signature rule).
 */
import { derivePlan } from '../../src/plan/derive'
import { PlanState } from '../../src/plan/state'
import { taskId } from '../../src/protocol/ids'
import {
  newGoal,
  stamp,
  type AcceptRecord,
  type ClaimRecord,
  type Judgement,
  type PlanRecord,
  type Presence,
  type ProposalRecord,
  type ResultRecord,
  type ScoreRecord,
} from '../../src/protocol/records'
import type { ToolGroup } from '../../src/protocol/tool-groups'
import { canonicalJson } from '../../src/protocol/canonical'

const USAGE = {
  provider: 'offline',
  model: 'offline-v1',
  inputTokens: 80,
  outputTokens: 40,
  offline: true,
}
const T0 = 1_700_000_300_000

export const VECTOR_GROUP: ToolGroup = {
  name: 'files',
  tools: [
    { name: 'read_text_file', readOnly: true, destructive: false, openWorld: false, anyone: true },
    { name: 'write_file', readOnly: false, destructive: true, openWorld: false, anyone: false },
  ],
}

export function toolGroupVectors(room: string, executor: string, scorers: readonly string[]) {
  const presence = stamp<Presence>({
    kind: 'presence',
    room,
    from: executor,
    role: 'executor',
    capabilities: ['can_write_text'],
    tools: [VECTOR_GROUP],
    holding: [],
    load: 0,
    capacity: 4,
    healthy: true,
    model: 'offline-v1',
    offline: true,
    boot: T0,
    seq: 1,
    every: 5_000,
  })
  const goal = newGoal(room, scorers[0]!, 'Quote the note', T0, 1)
  const proposal = stamp<ProposalRecord>({
    room,
    from: scorers[0]!,
    kind: 'proposal',
    goal: goal.id,
    subgoals: [
      { text: 'Read the note with read_text_file', dependsOn: [] },
      { text: 'Write the summary', dependsOn: [0] },
    ],
    rationale: 'Read, then write.',
    usage: USAGE,
  })
  const j = (tool?: string): Judgement => ({
    atomic: true,
    capability: 'can_write_text',
    ...(tool ? { tool } : {}),
  })
  const votes = (
    [
      [0.9, [j('files'), j()]],
      [0.8, [j('files'), j('files')]],
    ] as const
  ).map(([score, judgements], i) =>
    stamp<ScoreRecord>({
      room,
      from: scorers[i]!,
      kind: 'score',
      goal: goal.id,
      proposal: proposal.id,
      score,
      notes: '',
      judgements: [...judgements],
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
  const accept = stamp<AcceptRecord>({
    room,
    from: scorers[0]!,
    kind: 'accept',
    goal: goal.id,
    proposal: proposal.id,
    basis: 'quorum',
    votes: votes.map((v) => v.id).sort(),
    epoch: 0,
  })
  const records: PlanRecord[] = [goal, proposal, ...votes, claim, accept]
  const state = new PlanState()
  for (const record of records) state.add(record)
  const slots = derivePlan(state).goals.get(goal.id)!.slots
  const result = stamp<ResultRecord>({
    kind: 'result',
    room,
    from: executor,
    task: slots[0]!.execute!.id,
    epoch: 0,
    output: 'The note says: the gate code is 4711.',
    usage: USAGE,
    steps: [
      {
        type: 'tool',
        group: 'files',
        name: 'read_text_file',
        input: '{"path":"/srv/notes/gate.txt"}',
        output: 'the gate code is 4711\n',
        status: 'ok',
        durationMs: 12,
      },
      {
        type: 'tool',
        group: 'files',
        name: 'write_file',
        input: '{"path":"/srv/notes/gate.txt","content":""}',
        output:
          "refused: files/write_file is kept for its person's own goals, and this is another member's goal. Do not try another way around it.",
        status: 'refused',
        durationMs: 0,
      },
    ],
  })
  return {
    about:
      'since version 8: a presence announcing a tool group; a split whose cited voters name the group a subgoal needs (most named among the winning side, "none" counting, ties to the better score); a result with tool steps',
    presence: { record: presence, body: canonicalJson(presence), id: presence.id },
    records,
    slots: slots.map((slot) => ({
      index: slot.index,
      capability: slot.capability,
      tool: slot.tool,
      task: slot.execute?.id ?? null,
    })),
    result: { record: result, body: canonicalJson(result), id: result.id },
  }
}
