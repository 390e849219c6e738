/**
 * Range-based set reconciliation (in the style of Negentropy): the pure core
 * of anti-entropy sync. No I/O, no libp2p: sync.ts carries the messages.
 *
 * Both sides hold a set of ids (lowercase hex, compared as strings, which is
 * the order of the bytes they spell). A message is a list of ranges that
 * covers the whole id space in order: range i is [upper of range i-1, its own
 * upper), the first starts at the empty id, the last ends at infinity (null).
 * Each range says one of:
 *
 *   skip         nothing to do here
 *   fingerprint  the sender's fingerprint of its ids in the range
 *   idlist       every id the sender has in the range, in two lists: held
 *                (it can send them) and gone (archived: never ask for them)
 *   have         ids the sender holds in the range that the receiver lacks
 *                (its answer to the receiver's idlist); needs no reply
 *
 * A receiver answers a fingerprint with skip when its own matches, else with
 * the range split in `branching` sub-ranges (by its own ids) with their
 * fingerprints, or an idlist when it has few ids there. It answers an idlist
 * with the ids the sender lacks (have), and notes the ids it lacks itself.
 * Rounds go back and forth until a message holds nothing but skip and have.
 * Differing in d ids out of n costs about d · log_b(n) ranges, not n ids.
 *
 * Archived ids (tombstones) are part of the set we fingerprint and list, so
 * a peer that archived records is never asked to fetch them again, but they
 * are never offered (have) since their bytes are gone.
 */
import { FINGERPRINT_BYTES, IdSet, type Bound } from './id-set'

export { FINGERPRINT_BYTES, IdSet, mergeSorted, type Bound } from './id-set'

/**
 * Sync: sub-ranges a mismatched range is split into. 16 (Negentropy's
 * choice) keeps the rounds few (log16: 4 levels for 100,000 ids) while a
 * split costs only 16 fingerprints (~35 bytes each).
 */
export const SYNC_BRANCHING = 16

/**
 * Sync: a range holding at most this many of our ids is answered with the ids
 * themselves (17 bytes each) instead of being split: 32 ids cost about what
 * 16 fingerprints do, so below it splitting saves nothing.
 */
export const SYNC_IDLIST_THRESHOLD = 32

/**
 * Sync: most ids in one idlist or have range; a longer have list is cut into
 * consecutive ranges. 1,000 ids are ~17 KB, well inside a frame.
 */
export const SYNC_MAX_IDS_PER_RANGE = 1_000

/**
 * Sync: most ranges one reconciliation message may carry. An honest peer
 * stops splitting at this budget (the rest is reconciled by the next session),
 * a receiver refuses more. 16,384 ranges are ~600 KB: one round can split
 * 1,024 mismatched ranges 16 ways.
 */
export const SYNC_MAX_MESSAGE_RANGES = 16_384

/**
 * Sync: most records asked for (and most ids offered) in one session; the
 * rest is fetched by the next session, which starts at once. Every record is
 * verified on arrival: 5,000 records take a few seconds even with pure-JS
 * Ed25519 in a tab, well inside SYNC_SESSION_TIMEOUT_MS, and bound what one
 * session holds in memory. There is no cap on the size of a room's set.
 */
export const SYNC_MAX_WANT_PER_SESSION = 5_000

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export type Range =
  | { upper: Bound; mode: 'skip' }
  | { upper: Bound; mode: 'fingerprint'; fingerprint: Uint8Array }
  | { upper: Bound; mode: 'idlist'; ids: string[]; gone: string[] }
  | { upper: Bound; mode: 'have'; ids: string[] }

export interface ReconcileParams {
  /** sub-ranges a mismatched range is split into */
  branching: number
  /** a range with at most this many of our ids is answered with an idlist */
  idlistThreshold: number
  /** most ids in one idlist or have range (a longer have is cut in several) */
  maxIdsPerRange: number
  /** most ranges in a message we send; past it, mismatches wait for the next session */
  maxRanges: number
  /** most ids we offer (have) in one message; past it, likewise */
  maxHave: number
}

/** The parameters every sync session uses (see constants.ts for why). */
export const SYNC_PARAMS: ReconcileParams = {
  branching: SYNC_BRANCHING,
  idlistThreshold: SYNC_IDLIST_THRESHOLD,
  maxIdsPerRange: SYNC_MAX_IDS_PER_RANGE,
  maxRanges: SYNC_MAX_MESSAGE_RANGES,
  maxHave: SYNC_MAX_WANT_PER_SESSION,
}

/** A peer's message broke the reconciliation rules (bounds, ids, sizes). */
export class ReconcileError extends Error {
  override name = 'ReconcileError'
}

/** Ranges that answer a mismatch in [lower, upper): idlist when small, else split. */
function split(set: IdSet, lower: string, upper: Bound, p: ReconcileParams): Range[] {
  const start = set.lowerIndex(lower)
  const end = set.lowerIndex(upper)
  const n = end - start
  if (n <= p.idlistThreshold) {
    const ids: string[] = []
    const gone: string[] = []
    for (const id of set.sorted.slice(start, end)) (set.held(id) ? ids : gone).push(id)
    return [{ upper, mode: 'idlist', ids, gone }]
  }
  const out: Range[] = []
  for (let i = 0; i < p.branching; i++) {
    const s = start + Math.floor((i * n) / p.branching)
    const e = start + Math.floor(((i + 1) * n) / p.branching)
    if (e === s) continue
    const up = i === p.branching - 1 ? upper : (set.sorted[e] as string)
    out.push({ upper: up, mode: 'fingerprint', fingerprint: set.fingerprint(s, e) })
  }
  return out
}

/** The first message of the side that opens the session. */
export function initialMessage(set: IdSet, p: ReconcileParams): Range[] {
  return split(set, '', null, p)
}

/** Whether the other side must answer this message. */
export function needsReply(message: readonly Range[]): boolean {
  return message.some((r) => r.mode === 'fingerprint' || r.mode === 'idlist')
}

function checkIds(ids: readonly string[], lower: string, upper: Bound, p: ReconcileParams): void {
  if (ids.length > p.maxIdsPerRange) throw new ReconcileError(`range lists ${ids.length} ids`)
  let prev: string | undefined
  for (const id of ids) {
    if (id < lower || (upper !== null && id >= upper)) throw new ReconcileError('id outside range')
    if (prev !== undefined && id <= prev) throw new ReconcileError('ids not sorted and distinct')
    prev = id
  }
}

/** Cuts a long `have` list into ranges of at most maxIdsPerRange ids. */
function haveRanges(ids: string[], upper: Bound, p: ReconcileParams): Range[] {
  const out: Range[] = []
  for (let i = 0; i < ids.length; i += p.maxIdsPerRange) {
    const next = ids[i + p.maxIdsPerRange]
    out.push({ upper: next ?? upper, mode: 'have', ids: ids.slice(i, i + p.maxIdsPerRange) })
  }
  return out
}

function pushCoalesced(out: Range[], r: Range): void {
  const last = out[out.length - 1]
  if (r.mode === 'skip' && last?.mode === 'skip') last.upper = r.upper
  else out.push(r)
}

export interface Response {
  /** the answer to send back (only if needsReply(message)) */
  reply: Range[]
  /** ids the other side has and we lack, in order */
  need: string[]
  /** some difference was left for a later session (a budget was reached) */
  deferred: boolean
}

/**
 * Answers one message. Throws ReconcileError when the message is malformed:
 * bounds not increasing, not ending at infinity, ids outside their range or
 * unsorted, or a range listing too many ids.
 */
export function respond(set: IdSet, message: readonly Range[], p: ReconcileParams): Response {
  const reply: Range[] = []
  const need: string[] = []
  let offered = 0
  let deferred = false
  let lower = ''
  if (message.length > p.maxRanges * 2) throw new ReconcileError('too many ranges')
  message.forEach((r, i) => {
    if (r.upper !== null && r.upper <= lower) throw new ReconcileError('bounds not increasing')
    if (r.upper === null && i !== message.length - 1) throw new ReconcileError('range after end')
    switch (r.mode) {
      case 'skip':
        pushCoalesced(reply, { upper: r.upper, mode: 'skip' })
        break
      case 'fingerprint': {
        if (r.fingerprint.length !== FINGERPRINT_BYTES) throw new ReconcileError('bad fingerprint')
        const mine = set.fingerprint(set.lowerIndex(lower), set.lowerIndex(r.upper))
        if (equalBytes(mine, r.fingerprint)) pushCoalesced(reply, { upper: r.upper, mode: 'skip' })
        else if (reply.length + p.branching > p.maxRanges) {
          deferred = true
          pushCoalesced(reply, { upper: r.upper, mode: 'skip' })
        } else for (const sub of split(set, lower, r.upper, p)) reply.push(sub)
        break
      }
      case 'idlist': {
        checkIds(r.ids, lower, r.upper, p)
        checkIds(r.gone, lower, r.upper, p)
        const theirs = new Set([...r.ids, ...r.gone])
        for (const id of r.ids) if (!set.has(id)) need.push(id)
        const have: string[] = []
        const end = set.lowerIndex(r.upper)
        for (let k = set.lowerIndex(lower); k < end; k++) {
          const id = set.sorted[k] as string
          if (theirs.has(id) || !set.held(id)) continue
          if (offered + have.length >= p.maxHave) {
            deferred = true
            break
          }
          have.push(id)
        }
        offered += have.length
        if (have.length === 0) pushCoalesced(reply, { upper: r.upper, mode: 'skip' })
        else for (const h of haveRanges(have, r.upper, p)) reply.push(h)
        break
      }
      case 'have':
        checkIds(r.ids, lower, r.upper, p)
        for (const id of r.ids) if (!set.has(id)) need.push(id)
        pushCoalesced(reply, { upper: r.upper, mode: 'skip' })
        break
    }
    lower = r.upper ?? lower
  })
  if (message.length === 0 || message[message.length - 1]?.upper !== null) {
    throw new ReconcileError('ranges do not end at infinity')
  }
  return { reply, need, deferred }
}

/**
 * Reconciles two sets in memory, message by message, as two peers would over
 * a stream. For tests, the simulator and the benchmark. Returns what each
 * side lacks and how many rounds (messages) it took.
 */
export function reconcileInMemory(
  a: IdSet,
  b: IdSet,
  p: ReconcileParams,
  onMessage?: (from: 'a' | 'b', message: Range[]) => void,
): { aNeeds: string[]; bNeeds: string[]; messages: number } {
  const aNeeds: string[] = []
  const bNeeds: string[] = []
  let message = initialMessage(a, p)
  onMessage?.('a', message)
  let messages = 1
  let turn: 'a' | 'b' = 'b'
  for (;;) {
    const { reply, need } = respond(turn === 'a' ? a : b, message, p)
    ;(turn === 'a' ? aNeeds : bNeeds).push(...need)
    if (!needsReply(message)) break
    onMessage?.(turn, reply)
    messages++
    message = reply
    if (!needsReply(reply)) {
      const other = turn === 'a' ? b : a
      ;(turn === 'a' ? bNeeds : aNeeds).push(...respond(other, reply, p).need)
      break
    }
    turn = turn === 'a' ? 'b' : 'a'
  }
  return { aNeeds, bNeeds, messages }
}

/** Ids a message offers: those it lists as held (idlist) or as have. */
export function offeredIds(message: readonly Range[]): string[] {
  const out: string[] = []
  for (const r of message) if (r.mode === 'idlist' || r.mode === 'have') out.push(...r.ids)
  return out
}
