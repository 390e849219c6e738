/**
 * Signed plan records in bulk, for the sync and archive benchmarks: the
 * record kinds of a real plan in about the proportions a run produces
 * (scores and claims are the most common, results the largest), each signed
 * by one of a few real Ed25519 keys, so receivers verify them for real.
 */
import { encodeRecord, type Signer } from '../src/protocol/codec'
import { taskId } from '../src/protocol/ids'
import { stamp, type Draft, type PlanRecord } from '../src/protocol/records'
import { makeSigner } from '../src/protocol/fixtures.test-support'

/**
 * Signing keys the records are spread over: a room of a dozen authors. Three
 * records in eight are scores, so at 100,000 records each author signs 3,125
 * scores, within its quota of 4,096 (src/protocol/limits.ts): with 8 authors
 * it was 4,688, and the stores refused the rest.
 */
const AUTHORS = 12
/**
 * Words of generated prose. Result outputs are the bulk of a real plan's
 * bytes (markdown of one to a few kB); the other kinds are a few hundred bytes.
 */
const WORDS = 'plan city rail pass budget hotel museum temple market garden route day'.split(' ')

const usage = {
  provider: 'offline',
  model: 'offline-v1',
  inputTokens: 300,
  outputTokens: 200,
  offline: true,
}

function prose(n: number, words: number): string {
  const out: string[] = []
  for (let i = 0; i < words; i++) out.push(WORDS[(n * 7 + i * 13) % WORDS.length] as string)
  return `${n}: ${out.join(' ')}`
}

const hex = (n: number) => n.toString(16).padStart(32, '0')
/** A score's judgements of a three-part split (protocol version 7). */
const JUDGEMENTS = [
  { atomic: true, capability: 'can_write_text' },
  { atomic: false, capability: 'can_write_text' },
  { atomic: true, capability: 'can_query_api' },
]

/** The i-th record of root goal `goal` (an id), in room `room`, from `from`. */
export function draftRecord(
  i: number,
  goal: string,
  room: string,
  from: string,
): Draft<PlanRecord> {
  const base = { room, from }
  const node = hex(i * 31 + 7)
  switch (i % 8) {
    case 0:
      return {
        ...base,
        kind: 'proposal',
        goal,
        subgoals: [0, 1, 2, 3].map((k) => ({
          text: `Step ${k}: ${prose(i + k, 8)}`,
          dependsOn: k > 0 ? [k - 1] : [],
        })),
        rationale: prose(i, 40),
        usage,
      } as Draft<PlanRecord>
    case 1:
    case 2:
      return {
        ...base,
        kind: 'score',
        goal,
        proposal: hex(i),
        score: (i % 10) / 10,
        notes: prose(i, 20),
        judgements: JUDGEMENTS,
        usage,
      } as Draft<PlanRecord>
    case 3:
      // a third score where a classification record was (protocol 7 has none)
      return {
        ...base,
        kind: 'score',
        goal,
        proposal: hex(i + 1),
        score: (i % 7) / 7,
        notes: prose(i, 12),
        judgements: JUDGEMENTS,
        usage,
      } as Draft<PlanRecord>
    case 4:
    case 5:
      return {
        ...base,
        kind: 'claim',
        task: taskId('execute', node),
        taskType: 'execute',
        subject: node,
        epoch: 0,
        at: 1_700_000_000_000 + i,
      } as Draft<PlanRecord>
    case 6:
      return {
        ...base,
        kind: 'result',
        task: taskId('execute', node),
        epoch: 0,
        output: `# Result ${i}\n\n${prose(i, 300)}`,
        usage,
      } as Draft<PlanRecord>
    default:
      return {
        ...base,
        kind: 'accept',
        goal,
        proposal: hex(i),
        basis: 'quorum',
        votes: [hex(i + 1), hex(i + 2)],
        epoch: 0,
      } as Draft<PlanRecord>
  }
}

export interface SignedRecord {
  record: PlanRecord
  bytes: Uint8Array
}

let signers: Signer[] | undefined

/** Records per root goal: a goal record, then the plan records that follow it. */
export const RECORDS_PER_GOAL = 100

/** `n` distinct signed records of room `room`: a root goal every RECORDS_PER_GOAL records. */
export async function signedRecords(n: number, room: string): Promise<SignedRecord[]> {
  signers ??= await Promise.all(Array.from({ length: AUTHORS }, () => makeSigner()))
  const out: SignedRecord[] = []
  let goal = ''
  for (let i = 0; out.length < n; i++) {
    // one author per root goal's records, not per kind: every author's
    // records of a kind stay within its quota (src/protocol/quota.ts)
    const signer = signers[Math.floor(i / RECORDS_PER_GOAL) % AUTHORS] as Signer
    const draft: Draft<PlanRecord> =
      i % RECORDS_PER_GOAL === 0
        ? ({
            room,
            from: signer.peerId,
            kind: 'goal',
            text: `Goal ${prose(i, 10)}`,
            createdAt: 1_700_000_000_000 + i,
            maxDepth: 3,
          } as Draft<PlanRecord>)
        : draftRecord(i, goal, room, signer.peerId)
    const record = stamp(draft)
    if (record.kind === 'goal') goal = record.id
    out.push({ record, bytes: await encodeRecord(record, signer) })
  }
  return out
}
