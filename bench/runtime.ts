/**
 * A benchmark peer: exactly what src/runtime/node.ts `createNodeRuntime`
 * builds for a peer without a data directory (fresh Ed25519 identity,
 * records in memory, the role core in-process, the Node swarm node with
 * TCP, WebSockets, circuit relay and WebRTC).
 *
 * Why not import createNodeRuntime: src/runtime/node.ts imports
 * '../net/identity.node' and './persist.node' without an extension, which
 * Vite/Vitest resolve but Node's loader under tsx does not ('.node' looks
 * like a native addon), so `npm run bench` could not load it. Requested in
 * .scratch/bench-requests.md; once fixed this file can go.
 */
import { generateKeyPair } from '@libp2p/crypto/keys'
import type { ProviderInit } from '../src/llm/index'
import { createSwarmNode } from '../src/net/node.node.js'
import { nodeVerify } from '../src/protocol/verify.node.js'
import { inProcessCore } from '../src/runtime/host'
import { memoryPersistence } from '../src/runtime/persist'
import { createRuntime } from '../src/runtime/runtime'
import type { PeerRuntime, RuntimeInit } from '../src/runtime/types'

export interface BenchRuntimeInit extends RuntimeInit {
  rtcBindAddress: string
  providerInit?: ProviderInit
  log: (message: string) => void
}

export async function createBenchRuntime(init: BenchRuntimeInit): Promise<PeerRuntime> {
  const privateKey = await generateKeyPair('Ed25519')
  const log = init.log
  return createRuntime({
    init,
    privateKey,
    persistence: memoryPersistence(),
    startCore: inProcessCore(init.providerInit),
    createNode: (nodeInit) => createSwarmNode({ ...nodeInit, rtcBindAddress: init.rtcBindAddress }),
    log,
    verify: nodeVerify,
    netLogger: {
      debug: () => {},
      info: (m, f) => log(f ? `${m} ${JSON.stringify(f)}` : m),
      warn: (m, f) => log(`warning: ${m}${f ? ` ${JSON.stringify(f)}` : ''}`),
      error: (m, f) => log(`error: ${m}${f ? ` ${JSON.stringify(f)}` : ''}`),
    },
  })
}
