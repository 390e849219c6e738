/**
 * The sandbox for Node agents: the guest runner (quickjs-guest.ts) in a
 * worker_threads Worker with V8 resource limits, no environment variables
 * (the agent's API keys stay in the agent) and the shared host logic
 * (worker-host.ts): terminate on timeout or abort, a fresh thread after.
 */
import { Worker } from 'node:worker_threads'
import { resolveLimits, type SandboxInit } from './limits'
import type { CodeSandbox } from './types'
import { createWorkerSandbox, type WorkerHostOptions } from './worker-host'

/**
 * The worker thread's own JavaScript heap: the engine's glue and one
 * program's output. The guest's heap is WebAssembly memory, capped apart
 * (SandboxInit.memoryMb), so this only stops a fault in the glue.
 */
const THREAD_OLD_GENERATION_MB = 128
const THREAD_YOUNG_GENERATION_MB = 16

export function createNodeSandbox(init?: SandboxInit, options?: WorkerHostOptions): CodeSandbox {
  return createWorkerSandbox(
    resolveLimits(init),
    (onEvent) => {
      // scripts/ts-worker.mjs registers tsx in the thread (loader hooks are not inherited), so
      // the TypeScript entry loads under npm run agent, vitest and bare node alike
      const worker = new Worker(new URL('../../scripts/ts-worker.mjs', import.meta.url), {
        workerData: { entry: new URL('./sandbox-worker.node.ts', import.meta.url).href },
        env: {},
        resourceLimits: {
          maxOldGenerationSizeMb: THREAD_OLD_GENERATION_MB,
          maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB,
        },
      })
      // an idle sandbox must not keep the agent alive; a pending run's timer does while it runs
      worker.unref()
      worker.on('message', (message) => onEvent({ kind: 'message', message }))
      worker.on('error', (error: Error & { code?: string }) =>
        onEvent({
          kind: 'failure',
          message: error.message,
          outOfMemory: error.code === 'ERR_WORKER_OUT_OF_MEMORY',
        }),
      )
      worker.on('exit', (code) =>
        onEvent({ kind: 'failure', message: `the worker exited (${code})`, outOfMemory: false }),
      )
      return {
        post: (message) => worker.postMessage(message),
        terminate: () => void worker.terminate(),
      }
    },
    options,
  )
}

export type { SandboxInit }
