/** The signature worker of a tab, as a BatchOpener (null when the browser refuses the worker). */
import { BatchOpener, openSealed, type OpenKey, type OpenerPort } from './opener'

export function workerOpener(room: OpenKey, log: (message: string) => void): BatchOpener | null {
  try {
    const worker = new Worker(new URL('../worker/opener.worker.ts', import.meta.url), {
      type: 'module',
      name: 'murmuration-verify',
    })
    const opener = new BatchOpener(worker as unknown as OpenerPort, room, (sealed) =>
      openSealed(room, sealed),
    )
    worker.onerror = (event) => {
      log(`signature worker error: ${event.message}; verifying on the main thread`)
      opener.fail()
    }
    return opener
  } catch (err) {
    log(`no signature worker (${(err as Error).message}); verifying on the main thread`)
    return null
  }
}
