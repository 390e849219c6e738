/**
 * Plays the role worker (src/worker/role.worker.ts) for the sandbox harness:
 * a dedicated worker that creates the browser sandbox, so its Worker is a
 * nested one, as in the app.
 */
import { createBrowserSandbox } from '../../src/sandbox/sandbox.browser'
import type { CodeSandbox } from '../../src/sandbox/types'
import type { HarnessReply, HarnessRun } from './sandbox-messages'

const scope = self as unknown as {
  postMessage(message: HarnessReply): void
  onmessage: ((event: MessageEvent<HarnessRun>) => void) | null
}
const sandboxes = new Map<string, CodeSandbox>()

scope.onmessage = ({ data }) => {
  const key = JSON.stringify([data.init ?? {}, data.options ?? {}])
  let sandbox = sandboxes.get(key)
  if (sandbox === undefined)
    sandboxes.set(key, (sandbox = createBrowserSandbox(data.init, data.options)))
  const controller = new AbortController()
  if (data.abortAfterMs !== undefined) setTimeout(() => controller.abort(), data.abortAfterMs)
  const started = performance.now()
  const ms = (): number => Math.round(performance.now() - started)
  sandbox.run({ language: 'javascript', code: data.code }, controller.signal).then(
    (run) => scope.postMessage({ id: data.id, run, ms: ms() }),
    (error: unknown) => scope.postMessage({ id: data.id, rejected: String(error), ms: ms() }),
  )
}
