/**
 * The host side of a sandbox, shared by the browser and Node: starts the
 * worker on the first run, sends it one program at a time, and enforces the
 * hard time limit itself. The guest's interrupt handler stops ordinary loops
 * at the limit; if the worker is still silent KILL_GRACE_MS later (a hang
 * inside WebAssembly), or the run is aborted, the worker is terminated and
 * the next run starts a fresh one.
 */
import { MAX_STEP_CODE } from '../protocol/steps'
import type { CodeRun, CodeRunRequest, CodeSandbox } from './types'
import {
  KILL_GRACE_MS,
  LOAD_TIMEOUT_MS,
  memoryLimitMessage,
  timeLimitMessage,
  type GuestLimits,
} from './limits'
import type { RunMessage, WorkerMessage } from './messages'
import type { GuestResult } from './quickjs-guest'

/**
 * Longest program accepted: the record's cap (MAX_STEP_CODE), so the result
 * can always carry the whole program that ran, never a clipped one.
 */
export const MAX_CODE_CHARS = MAX_STEP_CODE

/** A run was aborted by its caller's signal. */
export class SandboxAbortedError extends Error {
  override name = 'AbortError'
  constructor(message = 'the code run was aborted') {
    super(message)
  }
}

/** What happened to a worker: a message, or its end (crash, out of memory, closed). */
export type WorkerEvent =
  | { kind: 'message'; message: WorkerMessage }
  | { kind: 'failure'; message: string; outOfMemory: boolean }

export interface GuestWorker {
  post(message: RunMessage): void
  terminate(): void
}

/** Starts a platform worker that reports to `onEvent`. */
export type SpawnWorker = (onEvent: (event: WorkerEvent) => void) => GuestWorker

export interface WorkerHostOptions {
  killGraceMs?: number
  loadTimeoutMs?: number
}

interface Session {
  worker: GuestWorker
  ready: Promise<void>
  /** the pending run's listener, if a run is pending */
  listener?: (event: WorkerEvent) => void
}

export function createWorkerSandbox(
  limits: GuestLimits,
  spawn: SpawnWorker,
  options: WorkerHostOptions = {},
): CodeSandbox {
  const killGraceMs = options.killGraceMs ?? KILL_GRACE_MS
  const loadTimeoutMs = options.loadTimeoutMs ?? LOAD_TIMEOUT_MS
  let session: Session | undefined
  let queue: Promise<unknown> = Promise.resolve()
  let nextId = 1

  function start(): Session {
    let settle!: { resolve(): void; reject(error: Error): void }
    const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }))
    ready.catch(() => {}) // observed by the run that waits for it
    const started: Session = {
      ready,
      worker: spawn((event) => {
        if (event.kind === 'message' && event.message.type === 'ready') return settle.resolve()
        if (event.kind === 'message' && event.message.type === 'broken')
          return settle.reject(new Error(event.message.message))
        if (event.kind === 'failure') settle.reject(new Error(event.message))
        started.listener?.(event)
      }),
    }
    return started
  }

  function kill(ended: Session): void {
    ended.listener = undefined
    ended.worker.terminate()
    if (session === ended) session = undefined
  }

  async function runNow(request: CodeRunRequest, signal?: AbortSignal): Promise<CodeRun> {
    const current = (session ??= start())
    try {
      await within(current.ready, loadTimeoutMs, signal)
    } catch (error) {
      kill(current)
      if (signal?.aborted === true) throw abortError(signal)
      return failed(request, `the sandbox could not start: ${(error as Error).message}`, 0)
    }
    return await new Promise<CodeRun>((resolve, reject) => {
      const id = nextId++
      const sent = performance.now()
      const elapsed = (): number => Math.round(performance.now() - sent)
      const end = (): void => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        current.listener = undefined
      }
      const timer = setTimeout(() => {
        end()
        kill(current)
        resolve({
          ...failed(request, timeLimitMessage(limits.timeLimitMs), elapsed()),
          timedOut: true,
        })
      }, limits.timeLimitMs + killGraceMs)
      const onAbort = (): void => {
        end()
        kill(current)
        reject(abortError(signal))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      current.listener = (event) => {
        if (event.kind === 'message') {
          if (event.message.type !== 'done' || event.message.id !== id) return
          end()
          return resolve(fromGuest(request, event.message.result))
        }
        end()
        kill(current)
        const why = event.outOfMemory
          ? memoryLimitMessage(limits.memoryMb)
          : `the sandbox stopped: ${event.message}`
        resolve(failed(request, why, elapsed()))
      }
      current.worker.post({ type: 'run', id, code: request.code, limits })
    })
  }

  return {
    run(request, signal) {
      if (signal?.aborted === true) return Promise.reject(abortError(signal))
      const refusal = refuse(request)
      if (refusal !== undefined) return Promise.resolve(failed(request, refusal, 0))
      const turn = queue.then(() => runNow(request, signal))
      queue = turn.catch(() => {})
      return turn
    },
    close() {
      const current = session
      if (current === undefined) return
      // the pending run, if any, ends as a failure (and kills the worker); else kill it here
      current.listener?.({ kind: 'failure', message: 'the sandbox was closed', outOfMemory: false })
      kill(current)
    },
  }
}

/** Why a request is not run at all, or undefined. */
function refuse(request: CodeRunRequest): string | undefined {
  if (request.language !== 'javascript')
    return `${String(request.language)} is not supported: write JavaScript`
  if (request.code.length > MAX_CODE_CHARS)
    return `the program is ${request.code.length} characters; the limit is ${MAX_CODE_CHARS}`
  return undefined
}

function fromGuest(request: CodeRunRequest, result: GuestResult): CodeRun {
  return { language: request.language, code: request.code, ...result }
}

function failed(request: CodeRunRequest, error: string, durationMs: number): CodeRun {
  return fromGuest(request, { stdout: '', stderr: '', exit: 1, error, durationMs, timedOut: false })
}

function abortError(signal?: AbortSignal): Error {
  return signal?.reason instanceof Error ? signal.reason : new SandboxAbortedError()
}

/** Waits for `promise`, at most `ms`, unless `signal` aborts first. */
async function within<T>(promise: Promise<T>, ms: number, signal?: AbortSignal): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  let onAbort: (() => void) | undefined
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms / 1000} s`)), ms)
    onAbort = () => reject(abortError(signal))
    signal?.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([promise, stop])
  } finally {
    clearTimeout(timer)
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort)
  }
}
