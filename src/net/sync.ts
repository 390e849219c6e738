/**
 * Anti-entropy sync over /murmuration/sync/1.0.0 (wire format: sync-wire.ts).
 *
 * One session per stream; both sides run the same state machine:
 *   send HELLO; read HELLO (room must match; equal digests → done);
 *   send our ids; read theirs; send WANT for the ids we lack; read their WANT;
 *   send the records they want; read the records we asked for, each added
 *   through store.add(bytes, peer), which verifies it.
 *
 * A record id we asked for in one session is not asked for in another
 * (`inflight`), so a late joiner that syncs with five peers at once downloads
 * each record once. If a session ends with some of them still missing, the
 * owner is told (onIncomplete) and syncs again.
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
  SYNC_MAX_IDS,
  SYNC_MAX_REJECTS,
  SYNC_PROTOCOL,
  SYNC_SESSION_TIMEOUT_MS,
  SYNC_WRITE_BATCH_BYTES,
} from './constants'
import { NetTimeoutError, ProtocolViolationError } from './errors'
import { errMsg, type NetLogger } from './log'
import {
  FrameType,
  decodeFrame,
  digestIds,
  encodeEnd,
  encodeHello,
  encodeIdFrames,
  encodeRecord,
  frameName,
  isWireId,
  type Frame,
  type Hello,
  SYNC_VERSION,
} from './sync-wire'
import type { RecordStore, SyncReport } from './types'

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
}

class Gate<T> {
  private resolveFn!: (v: T) => void
  private rejectFn!: (e: unknown) => void
  readonly promise: Promise<T>
  constructor(signal: AbortSignal) {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolveFn = resolve
      this.rejectFn = reject
    })
    this.promise.catch(() => {})
    if (signal.aborted) this.rejectFn(signal.reason)
    else signal.addEventListener('abort', () => this.rejectFn(signal.reason), { once: true })
  }
  open(v: T): void {
    this.resolveFn(v)
  }
}

export class Syncer {
  /** ids some session has asked a peer for and not yet received */
  private readonly inflight = new Set<string>()
  private readonly idleMs: number
  private readonly sessionMs: number
  private readonly maxRejects: number

  constructor(private readonly init: SyncerInit) {
    this.idleMs = init.idleTimeoutMs ?? SYNC_IDLE_TIMEOUT_MS
    this.sessionMs = init.sessionTimeoutMs ?? SYNC_SESSION_TIMEOUT_MS
    this.maxRejects = init.maxRejects ?? SYNC_MAX_REJECTS
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
    const held = [...store.ids()].filter(isWireId)
    const heldSet = new Set(held)
    const digest = digestIds(held)
    let myWant: string[] = []

    const theirHello = new Gate<Hello>(signal)
    const theirIds = new Gate<string[]>(signal)
    const theirWant = new Gate<string[]>(signal)
    let inSync = false

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
    armIdle()
    const readFrame = async (): Promise<Frame> => {
      const bytes = await lp.read({ signal })
      armIdle()
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
      if (batchBytes >= SYNC_WRITE_BATCH_BYTES) await flush()
    }

    const writer = async () => {
      await lp.write(encodeHello({ room, count: held.length, digest }), { signal })
      const hello = await theirHello.promise
      if (equalBytes(hello.digest, digest)) return
      for (const f of encodeIdFrames(FrameType.IDS, held, SYNC_IDS_PER_FRAME)) await queue(f)
      await queue(encodeEnd(FrameType.IDS_END))
      await flush()

      const theirs = await theirIds.promise
      myWant = theirs.filter(
        (id) => !heldSet.has(id) && !this.inflight.has(id) && store.get(id) === undefined,
      )
      for (const id of myWant) this.inflight.add(id)
      report.wanted = myWant.length
      for (const f of encodeIdFrames(FrameType.WANT, myWant, SYNC_IDS_PER_FRAME)) await queue(f)
      await queue(encodeEnd(FrameType.WANT_END))
      await flush()

      const wanted = await theirWant.promise
      for (const id of wanted) {
        const rec = store.get(id)
        if (rec === undefined) continue
        await queue(encodeRecord(rec))
        report.sent++
      }
      await queue(encodeEnd(FrameType.RECORDS_END))
      await flush()
    }

    const reader = async () => {
      const first = await readFrame()
      if (first.type !== FrameType.HELLO)
        throw violation(`expected HELLO, got ${frameName(first.type)}`)
      const hello = first.hello
      if (hello.version !== SYNC_VERSION) throw violation(`unsupported version ${hello.version}`)
      if (hello.room !== room) {
        throw new RoomMismatch(`peer is in room "${hello.room}", we are in "${room}"`)
      }
      if (hello.count > SYNC_MAX_IDS) throw violation(`announces ${hello.count} ids`)
      theirHello.open(hello)
      if (equalBytes(hello.digest, digest)) {
        inSync = true
        return
      }

      const ids: string[] = []
      for (;;) {
        const f = await readFrame()
        if (f.type === FrameType.IDS_END) break
        if (f.type !== FrameType.IDS) throw violation(`expected IDS, got ${frameName(f.type)}`)
        ids.push(...f.ids)
        if (ids.length > hello.count) throw violation('more ids than announced')
      }
      if (ids.length !== hello.count) throw violation('fewer ids than announced')
      theirIds.open(ids)

      const want: string[] = []
      for (;;) {
        const f = await readFrame()
        if (f.type === FrameType.WANT_END) break
        if (f.type !== FrameType.WANT) throw violation(`expected WANT, got ${frameName(f.type)}`)
        want.push(...f.ids)
        if (want.length > held.length) throw violation('asks for more ids than we announced')
      }
      theirWant.open(want)

      let received = 0
      for (;;) {
        const f = await readFrame()
        if (f.type === FrameType.RECORDS_END) break
        if (f.type !== FrameType.RECORD)
          throw violation(`expected RECORD, got ${frameName(f.type)}`)
        if (++received > myWant.length) throw violation('sends records we did not ask for')
        let verdict
        try {
          verdict = await store.add(f.record, peer)
        } catch (err) {
          logger.warn('sync: store.add threw (treated as reject)', { peer, error: errMsg(err) })
          verdict = 'reject' as const
        }
        if (verdict === 'accept') report.accepted++
        else if (verdict === 'ignore') report.ignored++
        else {
          report.rejected++
          logger.warn('sync: record rejected', { peer, bytes: f.record.length })
          if (report.rejected > this.maxRejects) throw violation('too many rejected records')
        }
      }
    }

    try {
      await Promise.all([
        writer().catch((err) => {
          ac.abort(err)
          throw err
        }),
        reader().then(
          // nothing more to read: only the session timeout applies now
          () => clearTimeout(idleTimer),
          (err) => {
            ac.abort(err)
            throw err
          },
        ),
      ])
      report.inSync = inSync
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
      for (const id of myWant) this.inflight.delete(id)
      report.missing = myWant.filter((id) => store.get(id) === undefined).length
      report.ms = Date.now() - started
    }
    if (report.rejected > 0 && report.error === undefined) {
      this.init.onStrike?.(peer, `sync: ${report.rejected} rejected records`)
    }
    this.init.onSession?.(report)
    return report
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

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
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
    sent: 0,
    accepted: 0,
    rejected: 0,
    ignored: 0,
    wanted: 0,
    missing: 0,
    ms: Date.now() - started,
  }
  if (error !== undefined) r.error = error
  return r
}
