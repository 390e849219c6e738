/**
 * A peer in a browser tab: the tab's own identity (IndexedDB, one per tab),
 * plan records in IndexedDB, the libp2p node on the main thread, the role
 * core and its LLM calls in a Web Worker.
 */
// first: zod's JIT probe off in this realm before anything parses (protocol/zod.ts)
import '../protocol/zod'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { acquireTabIdentity, browserTabPeerIds } from '../net/identity.browser'
import { createSwarmNode } from '../net/node.browser'
import { fetchRelayInfo, pickRelayAddrs } from '../net/relay-info'
import { ICE_CONFIG_PATH, iceServersSource } from '../net/ice-config'
import { workerOpener } from './opener.browser'
import { indexedDbCallStore } from './call-log.browser'
import { indexedDbPersistence } from './persist.browser'
import { indexedDbMembers } from './members-persist.browser'
import { stableRoomId } from '../protocol/room-key'
import { createRuntime } from './runtime'
import type { PeerRuntime, RuntimeInit } from './types'
import { workerCore } from './worker-host.browser'

/** Where the page's origin says the relay is (served by `npm start` and by the relay itself). */
export const RELAY_INFO_PATH = '/relay.json'

export async function createBrowserRuntime(init: RuntimeInit): Promise<PeerRuntime> {
  const identity = await acquireTabIdentity()
  const relays =
    init.relays ??
    pickRelayAddrs(await fetchRelayInfo(RELAY_INFO_PATH), location.hostname, location.protocol)
  // gossip is unsealed and verified in a worker: the main thread runs the
  // node and the UI, and a burst of records would stall both
  // records are kept by the room's stable id (version 7), so a plan survives its epochs
  const stable = init.member ? stableRoomId(init.room.name, init.member.owner) : init.room.id
  const runtime = await createRuntime({
    init: { ...init, relays },
    members: (id) => indexedDbMembers(id),
    openerFor: (key) => workerOpener(key, (message) => console.warn(message)),
    privateKey: identity.privateKey,
    persistence: indexedDbPersistence(stable),
    // the tab's own calls, under its identity: a reload (same identity) finds them
    callStore: indexedDbCallStore(peerIdFromPrivateKey(identity.privateKey).toString()),
    startCore: workerCore,
    // STUN/TURN from the page's origin, fetched again before TURN credentials expire
    createNode: (nodeInit) =>
      createSwarmNode({
        ...nodeInit,
        rtcConfiguration: iceServersSource({ url: ICE_CONFIG_PATH, log: (m) => console.warn(m) }),
      }),
    localAuthors: () => browserTabPeerIds(),
  })
  const stop = runtime.stop
  exposeForDevtools(runtime)
  return {
    ...runtime,
    async stop() {
      await stop()
      identity.release()
    },
  }
}

/** What `window.murmuration` offers in devtools (and to end-to-end tests): read-only views. */
export interface DevtoolsHandle {
  peerId: string
  room: string
  role: PeerRuntime['role']
  tree: PeerRuntime['tree']
  activity: PeerRuntime['activity']
  connections: PeerRuntime['connections']
  traffic: PeerRuntime['traffic']
  records: PeerRuntime['records']
}

declare global {
  interface Window {
    murmuration?: DevtoolsHandle
  }
}

function exposeForDevtools(runtime: PeerRuntime): void {
  window.murmuration = Object.freeze({
    peerId: runtime.peerId,
    room: runtime.room,
    role: runtime.role,
    tree: () => runtime.tree(),
    activity: () => runtime.activity(),
    connections: () => runtime.connections(),
    traffic: () => runtime.traffic(),
    records: () => runtime.records(),
  })
}
