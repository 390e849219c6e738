/**
 * The browser sandbox's dedicated Worker: compiles the QuickJS engine, warms
 * it with one empty run (which also loads the engine's glue modules), then
 * locks itself down (lockdown.browser.ts) and only then says it is ready.
 * Each program runs in a fresh engine instance (quickjs-guest.ts).
 */
import wasmUrl from '@jitl/quickjs-wasmfile-release-sync/wasm?url'
import { lockDown } from './lockdown.browser'
import { resolveLimits } from './limits'
import type { RunMessage, WorkerMessage } from './messages'
import { runGuest } from './quickjs-guest'

const scope = self as unknown as {
  postMessage(message: WorkerMessage): void
  onmessage: ((event: MessageEvent<RunMessage>) => void) | null
}
const send = (message: WorkerMessage): void => scope.postMessage(message)

async function boot(): Promise<void> {
  const wasmModule = await WebAssembly.compileStreaming(fetch(wasmUrl))
  const warm = await runGuest(wasmModule, '', resolveLimits())
  if (warm.exit !== 0) throw new Error(warm.error)
  const left = lockDown(self)
  if (left.length > 0) throw new Error(`could not remove ${left.join(', ')} from the worker`)
  scope.onmessage = ({ data }) => {
    void runGuest(wasmModule, data.code, data.limits).then((result) =>
      send({ type: 'done', id: data.id, result }),
    )
  }
  send({ type: 'ready' })
}

boot().catch((error: unknown) =>
  send({ type: 'broken', message: error instanceof Error ? error.message : String(error) }),
)
