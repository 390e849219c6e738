/**
 * The code sandbox's test harness page: starts a host worker that plays the
 * role worker and creates the browser sandbox inside it; exposes
 * `window.sandboxHarness` to the test. Not part of the app.
 */
import type { SandboxInit } from '../../src/sandbox/limits'
import type { WorkerHostOptions } from '../../src/sandbox/worker-host'
import type { LockdownReport } from './lockdown-probe.worker'
import type { HarnessReply, HarnessRun } from './sandbox-messages'

export interface SandboxHarness {
  /** runs `code` in the sandbox for (init, options), from inside the host worker */
  run(
    code: string,
    config?: { init?: SandboxInit; options?: WorkerHostOptions; abortAfterMs?: number },
  ): Promise<HarnessReply>
  /** locks down a fresh worker and reports what is left */
  probeLockdown(): Promise<LockdownReport & { before: Record<string, string> }>
}

declare global {
  interface Window {
    sandboxHarness?: SandboxHarness
  }
}

const host = new Worker(new URL('./sandbox-host.worker.ts', import.meta.url), { type: 'module' })
const pending = new Map<number, (reply: HarnessReply) => void>()
host.onmessage = ({ data }: MessageEvent<HarnessReply>) => {
  pending.get(data.id)?.(data)
  pending.delete(data.id)
}
let nextId = 1

window.sandboxHarness = {
  run(code, config = {}) {
    const id = nextId++
    const message: HarnessRun = { id, code, ...config }
    return new Promise((resolve) => {
      pending.set(id, resolve)
      host.postMessage(message)
    })
  },
  probeLockdown() {
    const probe = new Worker(new URL('./lockdown-probe.worker.ts', import.meta.url), {
      type: 'module',
    })
    return new Promise((resolve) => {
      probe.onmessage = ({ data }) => {
        probe.terminate()
        resolve(data as LockdownReport & { before: Record<string, string> })
      }
    })
  },
}
const state = document.getElementById('state')
if (state !== null) state.textContent = 'ready'
