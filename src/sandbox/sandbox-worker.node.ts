/**
 * The Node sandbox's worker thread: compiles the QuickJS engine once and
 * warms it with an empty run (which loads the engine's glue modules), then
 * runs each program it is sent in a fresh instance (quickjs-guest.ts).
 * Started through scripts/ts-worker.mjs, which makes TypeScript loadable.
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { parentPort } from 'node:worker_threads'
import { resolveLimits } from './limits'
import type { RunMessage, WorkerMessage } from './messages'
import { runGuest } from './quickjs-guest'

const port = parentPort
if (port === null) throw new Error('sandbox-worker.node.ts runs only as a worker thread')
const send = (message: WorkerMessage): void => port.postMessage(message)

try {
  const wasmPath = createRequire(import.meta.url).resolve(
    '@jitl/quickjs-wasmfile-release-sync/wasm',
  )
  const wasmModule = await WebAssembly.compile(await readFile(wasmPath))
  const warm = await runGuest(wasmModule, '', resolveLimits())
  if (warm.exit !== 0) throw new Error(warm.error)
  port.on('message', (message: RunMessage) => {
    void runGuest(wasmModule, message.code, message.limits).then((result) =>
      send({ type: 'done', id: message.id, result }),
    )
  })
  send({ type: 'ready' })
} catch (error) {
  send({ type: 'broken', message: error instanceof Error ? error.message : String(error) })
}
