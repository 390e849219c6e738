/**
 * Checking many records at once: the seam between a bulk source of records
 * (an anti-entropy sync bringing thousands) and wherever their checks run.
 * A `BatchDecoder` takes signed records (wire bytes, unsealed) and answers,
 * for each in order, whether it passed every check of decodeRecord (§4 of
 * docs/PROTOCOL.md: format, UTF-8, JSON, schema, canonical form, id, room,
 * Ed25519 by `from`). It answers verdicts only: a caller that keeps a record
 * reads its fields back from the body (JSON.parse), which the canonical
 * check has made equal to the validated record.
 *
 * In-process here (`inProcessDecoder`); a Node peer spreads batches over
 * worker threads (verify-pool.node.ts), so the checks of one batch run on
 * every core while the main thread reads the next.
 */
import { decodeRecord, decodeRecordAsync, type Ed25519Verify, type RejectReason } from './codec'

export type BatchVerdict = { ok: true } | { ok: false; reason: RejectReason; detail: string }

export type BatchDecoder = (plain: readonly Uint8Array[], room: string) => Promise<BatchVerdict[]>

function verdict(decoded: ReturnType<typeof decodeRecord>): BatchVerdict {
  return decoded.ok ? { ok: true } : { ok: false, reason: decoded.reason, detail: decoded.detail }
}

/**
 * Checks in this thread: with `verify` (node:crypto) synchronously, else with
 * the platform's WebCrypto (decodeRecordAsync), all of a batch at once.
 */
export function inProcessDecoder(verify?: Ed25519Verify): BatchDecoder {
  if (verify !== undefined) {
    return (plain, room) =>
      Promise.resolve(plain.map((bytes) => verdict(decodeRecord(bytes, { room, verify }))))
  }
  return (plain, room) =>
    Promise.all(plain.map(async (bytes) => verdict(await decodeRecordAsync(bytes, { room }))))
}

/** Records packed back to back in one buffer: one transfer to a thread, not a clone of each. */
export interface PackedRecords {
  buffer: ArrayBuffer
  /** where each record ends in `buffer` (the next starts there) */
  ends: Uint32Array
}

export function packRecords(records: readonly Uint8Array[]): PackedRecords {
  let total = 0
  const ends = new Uint32Array(records.length)
  records.forEach((r, i) => {
    total += r.length
    ends[i] = total
  })
  const bytes = new Uint8Array(total)
  let at = 0
  for (const r of records) {
    bytes.set(r, at)
    at += r.length
  }
  return { buffer: bytes.buffer, ends }
}

/** The records of a pack, as views of its buffer. */
export function unpackRecords({ buffer, ends }: PackedRecords): Uint8Array[] {
  const out: Uint8Array[] = []
  let start = 0
  for (const end of ends) {
    out.push(new Uint8Array(buffer, start, end - start))
    start = end
  }
  return out
}

/** Verdicts as a thread sends them back: how many, and only the rejections in full. */
export interface PackedVerdicts {
  count: number
  rejected: Array<{ at: number; reason: RejectReason; detail: string }>
}

export function packVerdicts(verdicts: readonly BatchVerdict[]): PackedVerdicts {
  const rejected: PackedVerdicts['rejected'] = []
  verdicts.forEach((v, at) => {
    if (!v.ok) rejected.push({ at, reason: v.reason, detail: v.detail })
  })
  return { count: verdicts.length, rejected }
}

const PASSED: BatchVerdict = Object.freeze({ ok: true })

export function unpackVerdicts({ count, rejected }: PackedVerdicts): BatchVerdict[] {
  const out = new Array<BatchVerdict>(count).fill(PASSED)
  for (const { at, reason, detail } of rejected) out[at] = { ok: false, reason, detail }
  return out
}
