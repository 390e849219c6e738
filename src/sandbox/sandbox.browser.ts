/**
 * The sandbox for tabs: the guest runner (quickjs-guest.ts) in a dedicated
 * module Worker that has locked itself down (no network, no storage, no
 * workers), with the shared host logic (worker-host.ts): terminate() on the
 * time limit or an abort, a fresh worker after. Works from the page or from
 * inside another worker (the role worker makes the LLM calls).
 *
 * Nothing loads until the first run: the Worker, its script and the 0.5 MB
 * engine are fetched then, so a tab that never runs code pays nothing.
 */
import { resolveLimits, type SandboxInit } from './limits'
import type { WorkerMessage } from './messages'
import type { CodeSandbox } from './types'
import { createWorkerSandbox, type WorkerHostOptions } from './worker-host'

export function createBrowserSandbox(init?: SandboxInit, options?: WorkerHostOptions): CodeSandbox {
  return createWorkerSandbox(
    resolveLimits(init),
    (onEvent) => {
      const worker = new Worker(new URL('./sandbox.worker.ts', import.meta.url), {
        type: 'module',
        name: 'murmuration-sandbox',
      })
      worker.onmessage = ({ data }: MessageEvent<WorkerMessage>) =>
        onEvent({ kind: 'message', message: data })
      worker.onerror = (event) => {
        event.preventDefault()
        onEvent({
          kind: 'failure',
          message: event.message || 'the worker failed',
          outOfMemory: false,
        })
      }
      worker.onmessageerror = () =>
        onEvent({ kind: 'failure', message: 'an unreadable message', outOfMemory: false })
      return { post: (message) => worker.postMessage(message), terminate: () => worker.terminate() }
    },
    options,
  )
}

export type { SandboxInit }
