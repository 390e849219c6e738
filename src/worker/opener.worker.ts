/**
 * A tab's signature worker: opens and verifies gossip off the main thread
 * (src/runtime/opener.ts). It holds the room's record key (not the invite secret);
 * it never sees the tab's identity key or the API key.
 */
// first: zod's JIT probe off in this realm before anything parses (protocol/zod.ts)
import '../protocol/zod'
import { serveOpener, type FromOpener, type ToOpener } from '../runtime/opener'

const scope = self as unknown as {
  postMessage(message: FromOpener): void
  onmessage: ((event: MessageEvent<ToOpener>) => void) | null
}
const handle = serveOpener((message) => scope.postMessage(message))
scope.onmessage = ({ data }) => handle(data)
