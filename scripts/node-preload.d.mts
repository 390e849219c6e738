// Types of node-preload.mjs: it only sets up globals (Promise.withResolvers, WebSocket).
export {}
