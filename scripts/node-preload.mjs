// libp2p 3 targets Node 22. On Node 20 two globals are missing:
// Promise.withResolvers (used throughout libp2p) and WebSocket (used by
// @libp2p/websockets to dial). Preload this with `node --import`.
import { WebSocket } from 'ws'

if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers() {
    let resolve, reject
    const promise = new this((res, rej) => {
      resolve = res
      reject = rej
    })
    return { promise, resolve, reject }
  }
}

/**
 * ws's WebSocket with the browser's way with errors: an error event nobody
 * listens for is dropped. ws's is an EventEmitter, which throws it, and that
 * ends the process. @libp2p/websockets stops listening when a dial is
 * aborted (a dial timeout, a peer stopping) but leaves the socket
 * connecting, so its later error (a refused or reset connection) killed
 * the agent (test/node-preload.test.ts).
 */
class WhatwgWebSocket extends WebSocket {
  constructor(...args) {
    super(...args)
    this.on('error', () => {})
  }
}

if (typeof globalThis.WebSocket === 'undefined') {
  globalThis.WebSocket = WhatwgWebSocket
}
