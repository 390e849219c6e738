#!/usr/bin/env node
// `murmuration-agent`: the headless peer (src/cli/agent.ts) as a command,
// for `npm link` or `npx murmuration-agent` in a clone. The sources are
// TypeScript run through tsx, as `npm run agent` does, with the Node 20
// preload (Promise.withResolvers, WebSocket) first.
import '../scripts/node-preload.mjs'
import { register } from 'tsx/esm/api'

register()
await import('../src/cli/agent.ts')
