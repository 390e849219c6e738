/**
 * The checks a record must pass besides its bytes and its signature: schema,
 * canonical form, content id, claim task id, room and sender. The codec runs
 * them on every record it decodes; a peer runs them on its own records before
 * it stores or publishes them, so it never publishes what its peers would
 * reject (and strike it for).
 */
import { canonicalJson } from './canonical'
import { remember } from './hash'
import { taskId } from './ids'
import { verifyBind } from './member-key'
import { canonicalRecord, type BindRecord, type WireRecord } from './records'
import { wireRecordSchema } from './schemas'

export type ValidationReason =
  'schema' | 'not-canonical' | 'bad-id' | 'wrong-room' | 'wrong-sender' | 'bad-signature'

export type Validated =
  { ok: true; record: WireRecord } | { ok: false; reason: ValidationReason; detail: string }

export interface ValidationContext {
  /** the room this peer is in: a record from another room is rejected */
  room?: string
  /** who sent (gossip) or signs (own records) it: must equal the record's `from` */
  sender?: string
}

/**
 * Validate a parsed JSON value as a record. Never throws. `text`: the bytes
 * the value was parsed from (a received record), which must be the record's
 * canonical form; otherwise the value's own canonical form is the reference.
 */
export function validateRecord(
  value: unknown,
  context: ValidationContext = {},
  text?: string,
): Validated {
  const parsed = wireRecordSchema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    return {
      ok: false,
      reason: 'schema',
      detail: `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
    }
  }
  const record = parsed.data as WireRecord
  // the schema must not have changed anything, and what was signed is what
  // is kept: the record re-encodes to exactly the bytes received
  let encoded: ReturnType<typeof canonicalRecord>
  try {
    encoded = canonicalRecord(record)
    if (encoded.canonical !== (text ?? canonicalJson(value))) {
      const detail =
        text === undefined ? 'the schema altered the record' : 'body is not canonical JSON'
      return { ok: false, reason: 'not-canonical', detail }
    }
  } catch (err) {
    return { ok: false, reason: 'not-canonical', detail: (err as Error).message }
  }
  if (encoded.id !== record.id)
    return { ok: false, reason: 'bad-id', detail: `id ${record.id} does not match the content` }
  if (record.kind === 'claim' && record.task !== taskId(record.taskType, record.subject)) {
    return {
      ok: false,
      reason: 'bad-id',
      detail: `task ${record.task} is not the ${record.taskType} task of ${record.subject}`,
    }
  }
  if (record.kind === 'bind' && !bindVerifies(record)) {
    return {
      ok: false,
      reason: 'bad-signature',
      detail: `bind to ${record.member} does not verify`,
    }
  }
  if (context.room !== undefined && record.room !== context.room)
    return { ok: false, reason: 'wrong-room', detail: `room ${record.room}` }
  if (context.sender !== undefined && record.from !== context.sender) {
    return {
      ok: false,
      reason: 'wrong-sender',
      detail: `from ${record.from} but sent by ${context.sender}`,
    }
  }
  return { ok: true, record }
}

/**
 * Whether a bind's `sig` is its member's signature of its room and author
 * (member-key.ts, strict Ed25519 rules). Cached by what it signs, not by
 * id (a caller may pass a record whose id nobody checked): a PeerId
 * re-publishes the same bind as it re-announces.
 */
export function bindVerifies(record: BindRecord): boolean {
  const key = `${record.room}\n${record.from}\n${record.member}\n${record.sig}`
  let ok = bindVerdicts.get(key)
  if (ok === undefined) {
    ok = verifyBind(record.member, record.sig, record.room, record.from)
    remember(bindVerdicts, key, ok)
  }
  return ok
}
const bindVerdicts = new Map<string, boolean>()
