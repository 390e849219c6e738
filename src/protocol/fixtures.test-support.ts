/** Test support: real Ed25519 signers and one valid record of every kind. */
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { Signer } from './codec'
import { taskId } from './ids'
import { stamp, type Draft, type WireRecord } from './records'

export async function makeSigner(): Promise<Signer> {
  const key = await generateKeyPair('Ed25519')
  return { peerId: peerIdFromPrivateKey(key).toString(), sign: (data) => key.sign(data) }
}

const ID = (n: number) => n.toString(16).padStart(32, '0')
const usage = {
  provider: 'offline',
  model: 'offline-v1',
  inputTokens: 10,
  outputTokens: 20,
  offline: true,
}

/** One valid record of every kind, from `from`, in room `room`. */
export function sampleRecords(from: string, room = 'lobby'): WireRecord[] {
  const base = { room, from }
  const drafts: Draft<WireRecord>[] = [
    {
      ...base,
      kind: 'goal',
      text: 'Plan a two-week trip to Japan',
      createdAt: 1_700_000_000_000,
      maxDepth: 3,
    },
    {
      ...base,
      kind: 'proposal',
      goal: ID(1),
      subgoals: [
        { text: 'Choose cities', dependsOn: [] },
        { text: 'Book flights', dependsOn: [0] },
      ],
      rationale: 'by stage',
      usage,
    },
    {
      ...base,
      kind: 'score',
      goal: ID(1),
      proposal: ID(2),
      score: 0.75,
      notes: 'covers it',
      judgements: [
        { atomic: true, capability: 'can_write_text' },
        { atomic: false, capability: 'can_query_api' },
      ],
      usage,
    },
    {
      ...base,
      kind: 'claim',
      task: taskId('execute', ID(3)),
      taskType: 'execute',
      subject: ID(3),
      epoch: 0,
      at: 1_700_000_000_500,
    },
    {
      ...base,
      kind: 'accept',
      goal: ID(1),
      proposal: ID(2),
      basis: 'quorum',
      votes: [ID(4), ID(5)],
      epoch: 0,
    },
    { ...base, kind: 'result', task: ID(6), epoch: 0, output: '# Flights\n- NRT', usage },
    {
      ...base,
      kind: 'failure',
      subject: ID(6),
      stage: 'execute',
      epoch: 0,
      index: -1,
      errorKind: 'rate-limit',
      detail: 'the LLM provider is rate limiting',
      usage: null,
    },
    { ...base, kind: 'reannounce', task: ID(6), epoch: 1, at: 1_700_000_060_000 },
    { ...base, kind: 'cancel', goal: ID(1), reason: 'changed my mind', at: 1_700_000_100_000 },
    { ...base, kind: 'steer', goal: ID(1), paused: true, approve: 'root', at: 1_700_000_110_000 },
    {
      ...base,
      kind: 'verdict',
      goal: ID(1),
      proposal: ID(2),
      approve: false,
      note: 'fewer, bigger steps',
      retire: [ID(2)],
      at: 1_700_000_120_000,
    },
    { ...base, kind: 'redo', task: ID(6), note: 'use metric units', at: 1_700_000_130_000 },
    {
      ...base,
      kind: 'presence',
      role: 'executor',
      capabilities: ['can_write_text'],
      holding: [ID(6)],
      load: 1,
      capacity: 4,
      healthy: true,
      model: 'offline-v1',
      offline: true,
      boot: 1_700_000_000_000,
      seq: 3,
      every: 5_000,
    },
  ] as unknown as Draft<WireRecord>[]
  return drafts.map((draft) => stamp(draft))
}
