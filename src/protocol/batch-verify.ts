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
