/**
 * Opening gossip: the seal (room key), then the record's checks and its
 * Ed25519 signature. Two ways to run it, with the same result:
 *
 * - in-process (`openSealed`): Node peers, tests, and a tab whose worker
 *   failed to start;
 * - batched to a worker (`BatchOpener`): in a tab, so that the main thread,
 *   which runs the libp2p node and the UI, spends no time on signatures. All
 *   messages that arrive in one task go to the worker in one postMessage (a
 *   sync or a burst of gossip brings dozens), and come back in one. The
 *   worker verifies with the browser's WebCrypto Ed25519 where it has it
 *   (`openSealedAsync`; pure JS otherwise): a pure-JS check cost a quiet
 *   tab's worker 1 to 4 ms a beat.
 */
import {
  decodeRecord,
  decodeRecordAsync,
  namedAuthor,
  type Decoded,
  type Ed25519Verify,
} from '../protocol/codec'
import type { WireRecord } from '../protocol/records'
import { openRecord, type RecordKey } from '../protocol/room-key'

/**
 * What opening a room's gossip needs: the epoch's transport id and record
 * key (the seal), and the room id the records themselves carry (the stable
 * room id since version 7; the transport id when `records` is absent).
 */
export interface OpenKey extends RecordKey {
  readonly records?: string
}

export interface Opened {
  record: WireRecord
  /** the signed record (unsealed wire bytes), as the plan store keeps it */
  plain: Uint8Array
}

/** An opened record, or why the bytes are not a valid record of this room. */
export type OpenResult = Opened | string

export function openSealed(room: OpenKey, sealed: Uint8Array, verify?: Ed25519Verify): OpenResult {
  const opened = openRecord(room, sealed)
  if (!opened.ok) return `${opened.reason} (not sealed for this room)`
  // no transport-level author to compare: gossip is unsigned (StrictNoSign),
  // the record's own signature by its `from` is the authenticator
  const decoded = decodeRecord(opened.plain, {
    room: room.records ?? room.id,
    ...(verify ? { verify } : {}),
  })
  return result(decoded, opened.plain)
}

/** openSealed with the platform's Ed25519 (WebCrypto, node:crypto): the same checks, the same verdicts. */
export async function openSealedAsync(room: OpenKey, sealed: Uint8Array): Promise<OpenResult> {
  const opened = openRecord(room, sealed)
  if (!opened.ok) return `${opened.reason} (not sealed for this room)`
  return result(
    await decodeRecordAsync(opened.plain, { room: room.records ?? room.id }),
    opened.plain,
  )
}

function result(decoded: Decoded, plain: Uint8Array): OpenResult {
  if (!decoded.ok) return `${decoded.reason} (${decoded.detail})`
  return { record: decoded.record, plain }
}

/**
 * The author a sealed record names, unchecked (no signature, no schema):
 * enough to pin a flood on the neighbour that sent it, as only that
 * neighbour could have sent a message naming it over its own link
 * (SwarmNodeInitBase.authorOf). Undefined for anything that names nobody.
 */
export function authorNamed(room: RecordKey, sealed: Uint8Array): string | undefined {
  const opened = openRecord(room, sealed)
  return opened.ok ? namedAuthor(opened.plain) : undefined
}

/** Main thread → worker. */
export type ToOpener =
  | { type: 'init'; room: OpenKey }
  | { type: 'open'; batch: Array<{ n: number; sealed: Uint8Array }> }

/** Worker → main thread. */
export type FromOpener = { type: 'opened'; results: Array<{ n: number; result: OpenResult }> }

/** What BatchOpener needs of a Worker (a fake in tests). */
export interface OpenerPort {
  postMessage(message: ToOpener): void
  onmessage: ((event: { data: FromOpener }) => void) | null
  terminate?(): void
}

/** The worker's side: answers every batch in one message, once all of it is open. */
export function serveOpener(post: (message: FromOpener) => void): (message: ToOpener) => void {
  let room: OpenKey | null = null
  const open = async (sealed: Uint8Array): Promise<OpenResult> => {
    if (room === null) return 'opener not initialised'
    try {
      return await openSealedAsync(room, sealed)
    } catch (err) {
      // never a batch left unanswered: the main thread waits for every result
      return `could not open: ${(err as Error).message}`
    }
  }
  return (message) => {
    if (message.type === 'init') {
      room = message.room
      return
    }
    void Promise.all(
      message.batch.map(async ({ n, sealed }) => ({ n, result: await open(sealed) })),
    ).then((results) => post({ type: 'opened', results }))
  }
}

export class BatchOpener {
  private next = 0
  private readonly waiting = new Map<number, (result: OpenResult) => void>()
  private batch: Array<{ n: number; sealed: Uint8Array }> = []
  private readonly sealedOf = new Map<number, Uint8Array>()
  private broken = false

  /** `fallback` opens in-process once the worker has failed */
  constructor(
    private readonly port: OpenerPort,
    room: OpenKey,
    private readonly fallback: (sealed: Uint8Array) => OpenResult,
  ) {
    // a plain copy: the app's key may be a reactive proxy, which cannot be
    // cloned to a worker; and the worker needs the record key, not the secret
    port.postMessage({
      type: 'init',
      room: {
        id: room.id,
        recordKey: new Uint8Array(room.recordKey),
        ...(room.records !== undefined ? { records: room.records } : {}),
      },
    })
    port.onmessage = ({ data }) => {
      for (const { n, result } of data.results) {
        this.waiting.get(n)?.(result)
        this.waiting.delete(n)
        this.sealedOf.delete(n)
      }
    }
  }

  /** Opens `sealed` in the worker, batched with whatever else this task asks for. */
  open(sealed: Uint8Array): Promise<OpenResult> {
    if (this.broken) return Promise.resolve(this.fallback(sealed))
    const n = this.next++
    this.sealedOf.set(n, sealed)
    if (this.batch.length === 0) queueMicrotask(() => this.flush())
    this.batch.push({ n, sealed })
    return new Promise((resolve) => this.waiting.set(n, resolve))
  }

  /** Messages in flight (for tests and diagnostics). */
  pending(): number {
    return this.waiting.size
  }

  /** The worker failed: what it still owed, and all that follows, is opened in-process. */
  fail(): void {
    if (this.broken) return
    this.broken = true
    this.batch = []
    for (const [n, resolve] of this.waiting) resolve(this.fallback(this.sealedOf.get(n)!))
    this.waiting.clear()
    this.sealedOf.clear()
    this.port.terminate?.()
  }

  close(): void {
    this.port.terminate?.()
  }

  private flush(): void {
    if (this.broken) return
    const batch = this.batch
    this.batch = []
    this.port.postMessage({ type: 'open', batch })
  }
}
