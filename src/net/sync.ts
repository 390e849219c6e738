/**
 * Anti-entropy sync over /murmuration/sync/6.0.0 (wire format: sync-wire.ts,
 * reconciliation: reconcile.ts).
 *
 * One session per stream. Both sides send HELLO (count and fingerprint of
 * their ids) and read the other's; equal → done. Otherwise the opener sends
 * the first reconciliation message and the sides take turns until a message
 * needs no answer: each side then knows which ids it lacks. Then both send
 * WANT for those (at most SYNC_MAX_WANT_PER_SESSION, only ids the other
 * offered), serve the other's WANT (only ids they offered), and read the
 * records they asked for, each added through store.add(bytes, peer, expected),
 * which verifies it and refuses one nobody asked for.
 *
 * A record id we asked for in one session is not asked for in another
 * (`inflight`), so a late joiner that syncs with five peers at once downloads
 * each record once. A session that leaves differences behind (missing or
 * deferred) is reported, and the owner syncs again.
 *
 * Every read has an idle timeout and the session a hard one; sizes and counts
 * are capped; a peer that breaks the protocol or sends junk records is logged,
 * struck, and its stream aborted. Nothing thrown here crosses the wire.
 */
import { lpStream } from '@libp2p/utils'
import type { Connection, Stream } from '@libp2p/interface'
import {
  SYNC_IDLE_TIMEOUT_MS,
  SYNC_IDS_PER_FRAME,
  SYNC_MAX_FRAME_BYTES,
  SYNC_MAX_REJECTS,
  SYNC_MAX_ROUNDS,
  SYNC_PROTOCOL,
  SYNC_RANGES_FRAME_BYTES,
  SYNC_SESSION_TIMEOUT_MS,
  SYNC_WRITE_BATCH_BYTES,
} from './constants'
import { NetTimeoutError, ProtocolViolationError } from './errors'
import { equalBytes } from './bytes'
import { errMsg, type NetLogger } from './log'
import {
  IdSet,
  initialMessage,
  needsReply,
  offeredIds,
  ReconcileError,
  respond,
  SYNC_PARAMS,
  type Range,
  type ReconcileParams,
} from '../protocol/reconcile'
import {
  FrameType,
  decodeFrame,
  encodeEnd,
  encodeHello,
  encodeMessage,
  encodeRecord,
  encodeWantFrames,
  frameName,
  lpPrefix,
  isWireId,
  type Frame,
  type Hello,
  SYNC_VERSION,
} from './sync-wire'
import type { RecordStore, SyncReport, Verdict } from './types'

export { SYNC_PARAMS }

/**
 * Records handed to the store at once (RecordStore.addMany): enough that a
 * Node peer's verification threads each get a chunk worth a postMessage
 * (verify-pool.node.ts), few enough that the first records of a big join
 * reach the plan within a few milliseconds of their arrival.
 */
export const SYNC_VERIFY_BATCH_RECORDS = 256
/** A batch is also cut at this many bytes (records can be up to 256 KiB). */
export const SYNC_VERIFY_BATCH_BYTES = 1024 * 1024
/**
 * Batches being checked while the next is read: the threads verify while the
 * main thread reads and decodes frames; more would only hold more memory.
 */
export const SYNC_VERIFY_BATCHES_IN_FLIGHT = 4

export interface SyncerInit {
  room: string
  store: RecordStore
  logger: NetLogger
  /** aborted when the node stops: every session ends */
  signal: AbortSignal
  /** a peer broke the protocol or sent junk */
  onStrike?: (peerId: string, reason: string) => void
  /** a session ended; `report.missing > 0` means some wanted records did not arrive */
  onSession?: (report: SyncReport) => void
  /** caps, for tests; defaults from constants.ts */
  idleTimeoutMs?: number
  sessionTimeoutMs?: number
  maxRejects?: number
  /** reconciliation parameters, for tests; default SYNC_PARAMS */
  params?: ReconcileParams
}

export class Syncer {
  /** ids some session has asked a peer for and not yet received */
  private readonly inflight = new Set<string>()
  private readonly idleMs: number
  private readonly sessionMs: number
  private readonly maxRejects: number
  private readonly params: ReconcileParams
  /** the sorted id set of the store's last revision (RecordStore.revision) */
  private cachedSet: { revision: number; set: IdSet } | undefined

  constructor(private readonly init: SyncerInit) {
    this.params = init.params ?? SYNC_PARAMS
    this.idleMs = init.idleTimeoutMs ?? SYNC_IDLE_TIMEOUT_MS
    this.sessionMs = init.sessionTimeoutMs ?? SYNC_SESSION_TIMEOUT_MS
    this.maxRejects = init.maxRejects ?? SYNC_MAX_REJECTS
  }

  /**
   * The store's ids and tombstones, sorted and encoded (IdSet): built again
   * only when the store changed since the last session. A peer serving a
   * late joiner session after session sorts its 100,000 ids once, not twenty
   * times.
   */
  private idSet(): IdSet {
    const { store } = this.init
    const revision = store.revision?.()
    if (revision !== undefined && this.cachedSet?.revision === revision) return this.cachedSet.set
    const set = new IdSet(
      [...store.ids()].filter(isWireId),
      [...(store.tombstones?.() ?? [])].filter(isWireId),
    )
    this.cachedSet = revision === undefined ? undefined : { revision, set }
    return set
  }

  /** Opens a session with the peer at the other end of `connection`. */
  async syncWith(connection: Connection): Promise<SyncReport> {
    const peer = connection.remotePeer.toString()
    const started = Date.now()
    let stream: Stream
    try {
      stream = await connection.newStream(SYNC_PROTOCOL, {
        signal: AbortSignal.any([this.init.signal, AbortSignal.timeout(this.idleMs)]),
      })
    } catch (err) {
      const report = emptyReport(peer, true, started, errMsg(err))
      this.init.logger.debug('sync: could not open stream', { peer, error: report.error })
      this.init.onSession?.(report)
      return report
    }
    return this.session(stream, peer, true)
  }

  /** The inbound stream handler for SYNC_PROTOCOL. */
  readonly handle = (stream: Stream, connection: Connection): void => {
    void this.session(stream, connection.remotePeer.toString(), false)
  }

  /** Runs one session on an open stream (either side; the protocol is symmetric). */
  async session(stream: Stream, peer: string, initiator: boolean): Promise<SyncReport> {
    const { store, logger, room } = this.init
    const params = this.params
    const started = Date.now()
    const report = emptyReport(peer, initiator, started)
    const ac = new AbortController()
    const signal = AbortSignal.any([
      this.init.signal,
      ac.signal,
      AbortSignal.timeout(this.sessionMs),
    ])
    const onAbort = () => stream.abort(asError(signal.reason))
    signal.addEventListener('abort', onAbort, { once: true })

    const lp = lpStream(stream, { maxDataLength: SYNC_MAX_FRAME_BYTES })
    const set = this.idSet()
    const held = (id: string) => (store.has ? store.has(id) : store.get(id) !== undefined)
    const fingerprint = set.fingerprintAll()
    /** ids we asked for and have not received yet */
    const myWant = new Set<string>()
    /** ids we offered the peer: the only ones it may ask for */
    const offered = new Set<string>()

    // idle watchdog: one timer re-armed per frame (cheaper than a timeout
    // signal per read when thousands of records stream in)
    let idleTimer: ReturnType<typeof setTimeout> | undefined
    const armIdle = () => {
      clearTimeout(idleTimer)
      idleTimer = setTimeout(
        () => ac.abort(new NetTimeoutError(`sync: no frame for ${this.idleMs} ms`)),
        this.idleMs,
      )
    }
    const readFrame = async (): Promise<Frame> => {
      armIdle()
      const bytes = await lp.read({ signal })
      report.bytesIn += bytes.byteLength + lpPrefix(bytes.byteLength)
      return decodeFrame(bytes.subarray())
    }

    // frames are written in batches of about SYNC_WRITE_BATCH_BYTES: one
    // send per record would cost a data-channel message and a tick each
    let batch: Uint8Array[] = []
    let batchBytes = 0
    const flush = async () => {
      if (batch.length === 0) return
      const frames = batch
      batch = []
      batchBytes = 0
      await lp.writeV(frames, { signal })
    }
    const queue = async (frame: Uint8Array) => {
      batch.push(frame)
      batchBytes += frame.length
      report.bytesOut += frame.length + lpPrefix(frame.length)
      if (batchBytes >= SYNC_WRITE_BATCH_BYTES) await flush()
    }
    const sendMessage = async (ranges: Range[]) => {
      for (const id of offeredIds(ranges)) offered.add(id)
      for (const f of encodeMessage(ranges, SYNC_RANGES_FRAME_BYTES)) await queue(f)
      await flush()
      report.rounds++
    }
    const readMessage = async (): Promise<Range[]> => {
      const ranges: Range[] = []
      for (;;) {
        const f = await readFrame()
        if (f.type === FrameType.ROUND_END) break
        if (f.type !== FrameType.RANGES)
          throw violation(`expected RANGES, got ${frameName(f.type)}`)
        ranges.push(...f.ranges)
        if (ranges.length > params.maxRanges * 2) throw violation('too many ranges')
      }
      if (++report.rounds > SYNC_MAX_ROUNDS) throw violation('too many rounds')
      return ranges
    }
    const answer = (message: Range[]): Range[] => {
      let r
      try {
        r = respond(set, message, params)
      } catch (err) {
        if (err instanceof ReconcileError) throw violation(err.message)
        throw err
      }
      if (r.deferred) report.deferred++
      for (const id of r.need) {
        if (myWant.has(id) || this.inflight.has(id) || held(id)) continue
        if (myWant.size >= params.maxHave) {
          report.deferred++
          continue
        }
        myWant.add(id)
        this.inflight.add(id)
      }
      return r.reply
    }

    /** HELLO both ways, then reconciliation turns; false when already in sync. */
    const reconcile = async (): Promise<boolean> => {
      await queue(encodeHello({ room, count: set.size, fingerprint }))
      await flush()
      const first = await readFrame()
      if (first.type !== FrameType.HELLO)
        throw violation(`expected HELLO, got ${frameName(first.type)}`)
      checkHello(first.hello, room)
      if (first.hello.count === set.size && equalBytes(first.hello.fingerprint, fingerprint)) {
        return false
      }
      if (initiator) await sendMessage(initialMessage(set, params))
      for (;;) {
        const message = await readMessage()
        const reply = answer(message)
        if (!needsReply(message)) break
        await sendMessage(reply)
        if (!needsReply(reply)) break
      }
      return true
    }

    const writer = async (theirWant: Promise<string[]>) => {
      const want = [...myWant]
      report.wanted = want.length
      for (const f of encodeWantFrames(want, SYNC_IDS_PER_FRAME)) await queue(f)
      await queue(encodeEnd(FrameType.WANT_END))
      await flush()
      for (const id of await theirWant) {
        const rec = store.get(id)
        if (rec === undefined) continue
        await queue(encodeRecord(rec))
        report.sent++
      }
      await queue(encodeEnd(FrameType.RECORDS_END))
      await flush()
    }

    const readWant = async (): Promise<string[]> => {
      const want: string[] = []
      for (;;) {
        const f = await readFrame()
        if (f.type === FrameType.WANT_END) break
        if (f.type !== FrameType.WANT) throw violation(`expected WANT, got ${frameName(f.type)}`)
        for (const id of f.ids) {
          if (!offered.has(id)) throw violation('asks for an id we did not offer')
          want.push(id)
        }
        if (want.length > Math.min(offered.size, params.maxHave)) {
          throw violation('asks for too many ids')
        }
      }
      return want
    }

    /** one batch of records to the store: its verdicts (a store that throws rejects them all) */
    const addBatch = async (records: Uint8Array[]): Promise<Verdict[]> => {
      const expected = (id: string) => myWant.delete(id)
      try {
        if (store.addMany) return await store.addMany(records, peer, expected)
        const verdicts: Verdict[] = []
        for (const r of records) verdicts.push(await store.add(r, peer, expected))
        return verdicts
      } catch (err) {
        logger.warn('sync: store.add threw (treated as reject)', { peer, error: errMsg(err) })
        return records.map(() => 'reject' as const)
      }
    }
    const tally = (verdicts: Verdict[], records: Uint8Array[]) => {
      verdicts.forEach((verdict, i) => {
        if (verdict === 'accept') report.accepted++
        else if (verdict === 'ignore') report.ignored++
        else {
          report.rejected++
          logger.warn('sync: record rejected (invalid, or not asked for)', {
            peer,
            bytes: records[i]?.length ?? 0,
          })
        }
      })
    }

    // Records are checked in batches, several at once, while the next are
    // read (SYNC_VERIFY_*): on a Node peer the checks run on every core.
    const readRecords = async () => {
      const checking = new Set<Promise<void>>()
      let batch: Uint8Array[] = []
      let batchBytes = 0
      const tooMany = () => {
        if (report.rejected > this.maxRejects) throw violation('too many rejected records')
      }
      const dispatch = async (inFlight: number) => {
        if (batch.length > 0) {
          const records = batch
          batch = []
          batchBytes = 0
          const job: Promise<void> = addBatch(records).then((verdicts) => {
            tally(verdicts, records)
            checking.delete(job)
          })
          checking.add(job)
        }
        // waiting on our own checks is not the peer being idle
        if (checking.size > inFlight) clearTimeout(idleTimer)
        while (checking.size > inFlight) {
          await Promise.race(checking)
          tooMany()
        }
        tooMany()
      }
      for (;;) {
        const f = await readFrame()
        if (f.type === FrameType.RECORDS_END) break
        if (f.type !== FrameType.RECORD)
          throw violation(`expected RECORD, got ${frameName(f.type)}`)
        batch.push(f.record)
        batchBytes += f.record.length
        if (batch.length >= SYNC_VERIFY_BATCH_RECORDS || batchBytes >= SYNC_VERIFY_BATCH_BYTES) {
          await dispatch(SYNC_VERIFY_BATCHES_IN_FLIGHT - 1)
        }
      }
      clearTimeout(idleTimer) // nothing more to read: only the session timeout applies now
      await dispatch(0)
    }

    let asked: string[] = []
    try {
      report.inSync = !(await reconcile())
      asked = [...myWant]
      if (!report.inSync) {
        const theirWant = readWant()
        theirWant.catch(() => {})
        await Promise.all([
          writer(theirWant).catch((err) => {
            ac.abort(err)
            throw err
          }),
          theirWant.then(readRecords).catch((err) => {
            ac.abort(err)
            throw err
          }),
        ])
      }
      clearTimeout(idleTimer)
      await stream.close({ signal })
    } catch (err) {
      const cause = signal.aborted ? signal.reason : err
      report.error = errMsg(cause)
      if (cause instanceof ProtocolViolationError) {
        logger.warn('sync: peer broke the protocol; dropped', { peer, error: report.error })
        this.init.onStrike?.(peer, `sync: ${cause.message}`)
      } else if (cause instanceof RoomMismatch) {
        logger.warn('sync: room mismatch; dropped', { peer, error: report.error })
      } else {
        logger.debug('sync: session failed', { peer, error: report.error })
      }
      stream.abort(asError(cause))
    } finally {
      clearTimeout(idleTimer)
      signal.removeEventListener('abort', onAbort)
      if (asked.length === 0) asked = [...myWant]
      for (const id of asked) this.inflight.delete(id)
      report.missing = asked.filter((id) => !held(id)).length
      report.ms = Date.now() - started
    }
    if (report.rejected > 0 && report.error === undefined) {
      this.init.onStrike?.(peer, `sync: ${report.rejected} rejected records`)
    }
    this.init.onSession?.(report)
    return report
  }
}

function checkHello(hello: Hello, room: string): void {
  if (hello.version !== SYNC_VERSION) throw violation(`unsupported version ${hello.version}`)
  if (hello.room !== room) {
    throw new RoomMismatch(`peer is in room "${hello.room}", we are in "${room}"`)
  }
}

class RoomMismatch extends Error {
  override name = 'RoomMismatch'
}

function violation(msg: string): ProtocolViolationError {
  return new ProtocolViolationError(`sync: ${msg}`)
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e))
}

function emptyReport(
  peer: string,
  initiator: boolean,
  started: number,
  error?: string,
): SyncReport {
  const r: SyncReport = {
    peer,
    initiator,
    inSync: false,
    rounds: 0,
    sent: 0,
    accepted: 0,
    rejected: 0,
    ignored: 0,
    wanted: 0,
    missing: 0,
    deferred: 0,
    bytesOut: 0,
    bytesIn: 0,
    ms: Date.now() - started,
  }
  if (error !== undefined) r.error = error
  return r
}
