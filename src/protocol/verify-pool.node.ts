/**
 * A Node peer's record checks on worker threads: a BatchDecoder
 * (batch-verify.ts) that cuts each batch in chunks, one per thread, so a late
 * join's hundred thousand records are checked on every core while the main
 * thread reads frames and fills the store. The verdicts are decodeRecord's
 * with node:crypto's Ed25519 (verify-worker.node.ts): the same rules as
 * in-process, only elsewhere.
 *
 * The threads start on the first batch (a peer that never syncs a big room
 * never starts them); until they have loaded their code, batches are checked
 * in-process, so nothing waits for them. They hold the process open only
 * while a batch is out. A thread that fails has its chunks checked
 * in-process, and is not used again.
 */
import { availableParallelism } from 'node:os'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import {
  inProcessDecoder,
  packRecords,
  unpackVerdicts,
  type BatchDecoder,
  type BatchVerdict,
  type PackedRecords,
  type PackedVerdicts,
} from './batch-verify'
import { nodeVerify } from './verify.node.js'

/**
 * Threads in the pool: one per core (the main thread mostly waits on them
 * during a bulk sync), at most 4: a batch of a sync session is a few hundred
 * records, and more threads would cost their start (tens of ms each, a
 * second under tsx) for chunks too small to share.
 */
export const VERIFY_THREADS = Math.max(1, Math.min(4, availableParallelism()))

/**
 * Fewest records sent to one thread: below it a postMessage round trip and
 * the copy cost more than checking them here (~0.1 ms a record).
 */
export const MIN_CHUNK_RECORDS = 32

/**
 * Main thread → verify thread: the chunk's records packed in one buffer,
 * transferred (a structured clone of each record cost both threads a
 * buffer of their own per record).
 */
export interface ToVerifyWorker {
  n: number
  room: string
  packed: PackedRecords
}
/** Verify thread → main thread (n = -1: started). */
export interface FromVerifyWorker {
  n: number
  results: PackedVerdicts
}

export interface VerifyPool {
  decode: BatchDecoder
  /**
   * Starts the threads now and resolves once each can take a batch: a peer
   * that expects to sync calls it at start, so a late join does not wait for
   * the threads to load their code (a second or more on a busy machine).
   */
  warm(): Promise<void>
  /** threads started so far (0 until the first batch) */
  readonly threads: number
  /** records checked so far on the threads and in this thread (the bench prints both) */
  readonly checked: { onThreads: number; here: number }
  close(): Promise<void>
}

interface Thread {
  worker: Worker
  ready: Promise<void>
  started: boolean
  pending: Map<number, { chunk: Uint8Array[]; room: string; done: (r: BatchVerdict[]) => void }>
  broken: boolean
}

export function createVerifyPool(options: { threads?: number } = {}): VerifyPool {
  const size = Math.max(1, options.threads ?? VERIFY_THREADS)
  const inProcess = inProcessDecoder(nodeVerify)
  const checked = { onThreads: 0, here: 0 }
  const local: BatchDecoder = (batch, room) => {
    checked.here += batch.length
    return inProcess(batch, room)
  }
  const threads: Thread[] = []
  let next = 0
  let closed = false

  const fail = (thread: Thread, why: string) => {
    if (thread.broken) return
    thread.broken = true
    process.emitWarning(`a record verification thread failed (${why}); checking in-process`)
    for (const { chunk, room, done } of thread.pending.values()) {
      checked.onThreads -= chunk.length
      void local(chunk, room).then(done)
    }
    thread.pending.clear()
    void thread.worker.terminate()
  }

  const start = () => {
    for (let i = 0; i < size; i++) {
      // scripts/ts-worker.mjs registers tsx in the thread (the sandbox's way):
      // the TypeScript entry loads under npm run agent, vitest and bare node
      const worker = new Worker(new URL('../../scripts/ts-worker.mjs', import.meta.url), {
        workerData: { entry: new URL('./verify-worker.node.ts', import.meta.url).href },
        env: {},
      })
      worker.unref()
      let started = () => {}
      const ready = new Promise<void>((resolve) => (started = resolve))
      const thread: Thread = { worker, ready, started: false, pending: new Map(), broken: false }
      worker.on('exit', () => started())
      worker.on('message', ({ n, results }: FromVerifyWorker) => {
        if (n === -1) {
          thread.started = true
          started()
        }
        const job = thread.pending.get(n)
        if (job === undefined) return
        thread.pending.delete(n)
        if (thread.pending.size === 0) worker.unref()
        job.done(unpackVerdicts(results))
      })
      worker.on('error', (err: Error) => fail(thread, err.message))
      worker.on('exit', (code) => {
        if (!closed) fail(thread, `exited with ${code}`)
      })
      threads.push(thread)
    }
  }

  const send = (chunk: Uint8Array[], room: string): Promise<BatchVerdict[]> => {
    const live = threads.filter((t) => t.started && !t.broken)
    if (live.length === 0 || closed) return local(chunk, room)
    // the thread with the fewest chunks out
    const thread = live.reduce((a, b) => (b.pending.size < a.pending.size ? b : a))
    const n = next++
    return new Promise((done) => {
      thread.pending.set(n, { chunk, room, done })
      thread.worker.ref()
      checked.onThreads += chunk.length
      const packed = packRecords(chunk)
      thread.worker.postMessage({ n, room, packed } satisfies ToVerifyWorker, [packed.buffer])
    })
  }

  const decode: BatchDecoder = async (plain, room) => {
    if (plain.length < MIN_CHUNK_RECORDS || closed) return local(plain, room)
    if (threads.length === 0) start()
    const up = () => threads.some((t) => t.started && !t.broken)
    // a thread says it has started by a message, which only a turn of the
    // event loop delivers: a session fed by promises alone (an in-memory
    // stream; bench:sync) never took one, and checked every record here
    if (!up()) await nextTurn()
    // until a thread has loaded its code, this thread checks
    if (!up()) return local(plain, room)
    const chunks = Math.min(size, Math.ceil(plain.length / MIN_CHUNK_RECORDS))
    const per = Math.ceil(plain.length / chunks)
    const parts: Promise<BatchVerdict[]>[] = []
    for (let i = 0; i < plain.length; i += per) parts.push(send(plain.slice(i, i + per), room))
    return (await Promise.all(parts)).flat()
  }

  return {
    decode,
    async warm() {
      if (threads.length === 0 && !closed) start()
      await Promise.all(threads.map((t) => t.ready))
    },
    get threads() {
      return threads.length
    },
    get checked() {
      return { ...checked }
    },
    async close() {
      closed = true
      for (const t of threads)
        for (const { chunk, room, done } of t.pending.values()) {
          checked.onThreads -= chunk.length
          void local(chunk, room).then(done)
        }
      await Promise.all(threads.map((t) => t.worker.terminate()))
    },
  }
}

let shared: VerifyPool | undefined

/**
 * The process's pool, shared by every peer it runs (an agent runs one; the
 * benchmark and tests run several, which would otherwise start threads each).
 */
export function sharedVerifyPool(): VerifyPool {
  shared ??= createVerifyPool()
  return shared
}
