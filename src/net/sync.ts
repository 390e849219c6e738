/**
 * Anti-entropy sync over /murmuration/sync/7.0.0 (wire format: sync-wire.ts,
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
  encodeWantFrames,
  frameName,
  lpPrefix,
  type Frame,
} from './sync-wire'
import type { RecordStore, SyncReport } from './types'
import { RecordIntake } from './sync-intake'
import { frameStream, type FrameParts } from './sync-frames'
import { StoreIds } from './sync-ids'
import {
  asError,
  checkHello,
  counted,
  emptyReport,
  IdleWatch,
  RoomMismatch,
  SYNC_MAX_RESUMES,
  SYNC_MAX_SESSIONS_PER_PEER,
  violation,
} from './sync-session'

export { SYNC_PARAMS, SYNC_MAX_RESUMES, SYNC_MAX_SESSIONS_PER_PEER }

/** A RECORD frame's type byte: the frame is written as it and the record's bytes, not joined first. */
const RECORD_TYPE = Uint8Array.of(FrameType.RECORD)

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
  /**
   * The open link to `peer` a session cut by its link's closing resumes on
   * (the newest direct link); none: not resumed.
   */
  linkTo?: (peer: string) => Connection | undefined
}

export class Syncer {
  /** ids some session has asked a peer for and not yet received */
  private readonly inflight = new Set<string>()
  private readonly idleMs: number
  private readonly sessionMs: number
  private readonly maxRejects: number
  private readonly params: ReconcileParams
  /** the store's ids, sorted and encoded, kept between sessions */
  private readonly ids: StoreIds
  /** sessions open with each peer, by the side that opened them */
  private readonly open = { mine: new Map<string, number>(), theirs: new Map<string, number>() }

  constructor(private readonly init: SyncerInit) {
    this.params = init.params ?? SYNC_PARAMS
    this.idleMs = init.idleTimeoutMs ?? SYNC_IDLE_TIMEOUT_MS
    this.sessionMs = init.sessionTimeoutMs ?? SYNC_SESSION_TIMEOUT_MS
    this.maxRejects = init.maxRejects ?? SYNC_MAX_REJECTS
    this.ids = new StoreIds(init.store)
  }

  /**
   * Opens a session with the peer at the other end of `connection`. When the
   * link closes under it and the peer has another open link (`linkTo`), the
   * session is resumed there at once (SYNC_MAX_RESUMES).
   */
  async syncWith(connection: Connection, resumes = 0): Promise<SyncReport> {
    const peer = connection.remotePeer.toString()
    const started = Date.now()
    if ((this.open.mine.get(peer) ?? 0) >= SYNC_MAX_SESSIONS_PER_PEER) {
      const report = emptyReport(peer, true, started, 'enough sessions open with this peer')
      this.init.onSession?.(report)
      return report
    }
    let stream: Stream
    try {
      stream = await connection.newStream(SYNC_PROTOCOL, {
        signal: AbortSignal.any([this.init.signal, AbortSignal.timeout(this.idleMs)]),
        // callers hand links only: a limited one is a link through the relay (fallback.ts)
        runOnLimitedConnection: true,
      })
    } catch (err) {
      const report = emptyReport(peer, true, started, errMsg(err))
      this.init.logger.debug('sync: could not open stream', { peer, error: report.error })
      this.init.onSession?.(report)
      return this.resume(connection, report, resumes)
    }
    const report = await counted(this.open.mine, peer, () =>
      this.session(stream, peer, true, resumes),
    )
    return this.resume(connection, report, resumes)
  }

  /** After a session on `connection` failed: on another link to the peer, if it was the link's fault. */
  private resume(connection: Connection, report: SyncReport, resumes: number): Promise<SyncReport> {
    if (report.error === undefined || this.init.signal.aborted) return Promise.resolve(report)
    if (connection.status === 'open' || resumes >= SYNC_MAX_RESUMES) return Promise.resolve(report)
    const next = this.init.linkTo?.(report.peer)
    if (next === undefined || next === connection || next.status !== 'open') {
      return Promise.resolve(report)
    }
    this.init.logger.info('sync: the link closed mid-session; resuming on another link', {
      peer: report.peer,
      accepted: report.accepted,
      error: report.error,
    })
    return this.syncWith(next, resumes + 1)
  }

  /** The inbound stream handler for SYNC_PROTOCOL. */
  readonly handle = (stream: Stream, connection: Connection): void => {
    const peer = connection.remotePeer.toString()
    if ((this.open.theirs.get(peer) ?? 0) >= SYNC_MAX_SESSIONS_PER_PEER) {
      this.init.logger.info('sync: refused a session (enough open with this peer)', { peer })
      stream.abort(new Error('enough sync sessions open with this peer'))
      return
    }
    void counted(this.open.theirs, peer, () => this.session(stream, peer, false))
  }

  /** Runs one session on an open stream (either side; the protocol is symmetric). */
  async session(
    stream: Stream,
    peer: string,
    initiator: boolean,
    resumes = 0,
  ): Promise<SyncReport> {
    const { store, logger, room } = this.init
    const params = this.params
    const started = Date.now()
    const report = emptyReport(peer, initiator, started)
    if (resumes > 0) report.resumes = resumes

    const ac = new AbortController()
    const signal = AbortSignal.any([
      this.init.signal,
      ac.signal,
      AbortSignal.timeout(this.sessionMs),
    ])
    const onAbort = () => stream.abort(asError(signal.reason))
    signal.addEventListener('abort', onAbort, { once: true })

    const lp = frameStream(stream, SYNC_MAX_FRAME_BYTES)
    const set = this.ids.current()
    const held = (id: string) => (store.has ? store.has(id) : store.get(id) !== undefined)
    const fingerprint = set.fingerprintAll()
    /** ids we asked for and have not received yet */
    const myWant = new Set<string>()
    /** ids we offered the peer: the only ones it may ask for */
    const offered = new Set<string>()

    // idle watchdog, pushed back at each frame read (IdleWatch: not a timer
    // per frame when a hundred thousand records stream in)
    const idle = new IdleWatch(this.idleMs, () =>
      ac.abort(new NetTimeoutError(`sync: no frame for ${this.idleMs} ms`)),
    )
    const readFrame = async (): Promise<Frame> => {
      idle.arm()
      const bytes = await lp.read({ signal })
      report.bytesIn += bytes.byteLength + lpPrefix(bytes.byteLength)
      return decodeFrame(bytes)
    }

    // frames are written in batches of about SYNC_WRITE_BATCH_BYTES: one
    // send per record would cost a data-channel message and a tick each
    let batch: FrameParts[] = []
    let batchBytes = 0
    const flush = async () => {
      if (batch.length === 0) return
      const frames = batch
      batch = []
      batchBytes = 0
      await lp.write(frames, { signal })
    }
    const queue = async (frame: FrameParts) => {
      const length =
        frame instanceof Uint8Array ? frame.length : frame.reduce((n, p) => n + p.length, 0)
      batch.push(frame)
      batchBytes += length
      report.bytesOut += length + lpPrefix(length)
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
        await queue([RECORD_TYPE, rec])
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

    // Records are checked in batches, several at once, while the next are
    // read (sync-intake.ts): on a Node peer the checks run on every core.
    const intake = new RecordIntake({
      store,
      peer,
      logger,
      report,
      expected: (id) => myWant.delete(id),
      maxRejects: this.maxRejects,
      // waiting on our own checks is not the peer being idle
      onWait: () => idle.stop(),
    })
    const readRecords = async () => {
      for (;;) {
        const f = await readFrame()
        if (f.type === FrameType.RECORDS_END) break
        if (f.type !== FrameType.RECORD)
          throw violation(`expected RECORD, got ${frameName(f.type)}`)
        await intake.push(f.record)
      }
      idle.stop() // nothing more to read: only the session timeout applies now
      await intake.finish()
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
      idle.stop()
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
      idle.stop()
      signal.removeEventListener('abort', onAbort)
      // records still being checked are not in flight any more only once
      // they are in the store (or refused): another session would fetch them again
      await intake.settled()
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
