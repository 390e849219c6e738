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

if (typeof globalThis.WebSocket === 'undefined') {
  globalThis.WebSocket = WebSocket
}
