/**
 * A peer in a Node process: a headless agent (`npm run agent`), a benchmark
 * peer, a test peer. Same runtime and role code as a tab; the core runs
 * in-process; identity and records live in a data directory when given.
 */
import { join } from 'node:path'
import type { PrivateKey } from '@libp2p/interface'
import { generateKeyPair } from '@libp2p/crypto/keys'
import type { ProviderInit } from '../llm/index'
import { modelVerdict } from '../llm/model-check'
import { lineLogger } from '../net/log'
import { loadOrCreateKeyFile } from '../net/identity.node.js'
import { createSwarmNode } from '../net/node.node.js'
import type { NetLogger, RtcConfigurationSource } from '../net/types'
import { nodeVerify } from '../protocol/verify.node.js'
import { sharedVerifyPool } from '../protocol/verify-pool.node.js'
import { createNodeSandbox } from '../sandbox/sandbox.node.js'
import { jsonLinesCallStore } from './call-log.node.js'
import { inProcessCore } from './host'
import { memoryPersistence } from './persist'
import { filePersistence, fileSpending } from './persist.node.js'
import { fileMembers } from './members-persist.node.js'
import { stableRoomId } from '../protocol/room-key'
import { createRuntime } from './runtime'
import type { McpHub } from './mcp/hub'
import type { PeerRuntime, RuntimeInit } from './types'

export interface NodeRuntimeInit extends RuntimeInit {
  /** keeps `identity.key` and `records.bin` here; default: a fresh identity and memory only */
  dataDir?: string
  privateKey?: PrivateKey
  /** libp2p listen addresses (default: TCP on 127.0.0.1, circuit relay, WebRTC) */
  listen?: string[]
  /** also a WebSocket on 127.0.0.1 for the tabs of this machine (createSwarmNode's tabLinks); default false */
  tabLinks?: boolean
  /** local address for WebRTC ICE candidates (tests: 127.0.0.1) */
  rtcBindAddress?: string
  /** STUN/TURN servers (e.g. iceServersSource of the app's /ice.json); default none */
  rtcConfiguration?: RtcConfigurationSource
  providerInit?: ProviderInit
  /** appends every LLM call to this JSON Lines file (the agent's --log-calls); default: memory only */
  callLogFile?: string
  log?: (message: string) => void
  /** the network layer's logger (default: lineLogger(log), or its console logger without log) */
  netLogger?: NetLogger
  /** executors: their person's MCP servers, connected (the agent's --mcp, --mcp-url); closed on stop */
  mcpHub?: McpHub
}

export async function createNodeRuntime(init: NodeRuntimeInit): Promise<PeerRuntime> {
  const privateKey =
    init.privateKey ??
    (init.dataDir
      ? await loadOrCreateKeyFile(join(init.dataDir, 'identity.key'))
      : await generateKeyPair('Ed25519'))
  // records are kept by the room's stable id (version 7), so a plan survives its epochs
  const stable = init.member ? stableRoomId(init.room.name, init.member.owner) : init.room.id
  const dataDir = init.dataDir
  return createRuntime({
    init,
    privateKey,
    persistence: dataDir
      ? filePersistence(join(dataDir, `records-${stable}.bin`))
      : memoryPersistence(),
    ...(dataDir ? { members: (id) => fileMembers(join(dataDir, `members-${id}.json`)) } : {}),
    startCore: inProcessCore({
      ...(init.providerInit ? { providerInit: init.providerInit } : {}),
      // the sandbox is a worker thread, started at the first program a model runs (runCode on)
      createSandbox: () => createNodeSandbox(),
      // what the agent spent survives a restart, so a restart does not lift an hourly cap
      ...(init.dataDir ? { spending: fileSpending(join(init.dataDir, 'spending.json')) } : {}),
      // a model known broken is checked again now and then: nobody clicks "check" on an agent
      checkModel: (model, signal) => modelVerdict(model, init.providerInit ?? {}, signal),
      ...(init.mcpHub ? { mcp: init.mcpHub } : {}),
    }),
    createNode: (nodeInit) =>
      createSwarmNode({
        ...nodeInit,
        ...(init.listen ? { listen: init.listen } : {}),
        ...(init.tabLinks === true ? { tabLinks: true } : {}),
        ...(init.rtcBindAddress ? { rtcBindAddress: init.rtcBindAddress } : {}),
        ...(init.rtcConfiguration ? { rtcConfiguration: init.rtcConfiguration } : {}),
      }),
    ...(init.callLogFile ? { callStore: jsonLinesCallStore(init.callLogFile) } : {}),
    log: init.log,
    ...(init.netLogger
      ? { netLogger: init.netLogger }
      : init.log
        ? { netLogger: lineLogger(init.log) }
        : {}),
    verify: nodeVerify,
    // a late join's records are checked on worker threads, every core (verify-pool.node.ts)
    decoder: sharedVerifyPool().decode,
  })
}
