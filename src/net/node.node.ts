/**
 * createSwarmNode for Node (headless agents, benchmarks, tests): TCP and
 * WebSockets for Node-to-Node and relay links, the circuit relay transport,
 * and WebRTC (node-datachannel) signalled through the relay, so a Node agent
 * links directly with browser tabs exactly as tabs link with each other.
 *
 * On Node 20, run with `--import ./scripts/node-preload.mjs`.
 */
import { circuitRelayTransport } from '@libp2p/circuit-relay-v2'
import { generateKeyPair } from '@libp2p/crypto/keys'
import type { PrivateKey } from '@libp2p/interface'
import { tcp } from '@libp2p/tcp'
import { webRTC } from '@libp2p/webrtc'
import { webSockets } from '@libp2p/websockets'
import { LINK_PING_MIN_TIMEOUT_MS, RELAY_RESERVATION_TIMEOUT_MS } from './constants'
import { isPlainTcp } from './direct-addrs'
import { loadOrCreateKeyFile } from './identity.node.js'
import { createSwarm } from './swarm'
import { rtcConfigurationWith } from './ice-config'
import type { SwarmNode, SwarmNodeInitBase } from './types'

export interface NodeSwarmNodeInit extends SwarmNodeInitBase {
  /**
   * Where to keep the key when `privateKey` is not given: loaded if present,
   * created otherwise. Default: none (a fresh PeerId per run).
   */
  keyFile?: string
  /**
   * Listen addresses. Default: TCP on 127.0.0.1 (random port), plus a
   * WebSocket there with `tabLinks`, plus /p2p-circuit and /webrtc
   * (reachable through the relays). Pass e.g. /ip4/0.0.0.0/tcp/4001 and
   * /ip4/0.0.0.0/tcp/4002/ws to accept direct links from the LAN.
   */
  listen?: string[]
  /**
   * Also listen on a WebSocket on 127.0.0.1 (TAB_LINK_LISTEN), which tabs of
   * this machine dial instead of WebRTC (dialer.ts): a peer that holds no
   * WebRTC link never starts libdatachannel's 10 ms SCTP timer, a third of
   * an idle agent's CPU. Default: false (Node peers link over TCP among
   * themselves); the agent (`npm run agent`) turns it on. Ignored with
   * `listen` or `directLinks: false`.
   */
  tabLinks?: boolean
  /**
   * Local address node-datachannel binds its ICE candidates to. Default:
   * every interface. Tests pass 127.0.0.1 to stay on loopback.
   */
  rtcBindAddress?: string
  /**
   * Link to other Node peers over the TCP or WebSocket addresses they
   * announce, and use WebRTC only with tabs and with peers those addresses
   * do not reach: TCP costs a fraction of the CPU of a WebRTC link (no DTLS,
   * SCTP or ICE) and needs no signalling. Default: true. Tests of WebRTC
   * between Node peers turn it off.
   */
  directLinks?: boolean
  /**
   * Make WebRTC links. Default: true. false plays a browser without WebRTC:
   * no WebRTC transport, no direct address, and the peer asks its relays to
   * carry its traffic (fallback.ts); for the fallback's own tests.
   */
  webrtc?: boolean
}

export const DEFAULT_NODE_LISTEN = ['/ip4/127.0.0.1/tcp/0', '/p2p-circuit', '/webrtc']
/** The WebSocket tabs of this machine dial (`tabLinks`): loopback only, random port. */
export const TAB_LINK_LISTEN = '/ip4/127.0.0.1/tcp/0/ws'

function listenAddrs(init: NodeSwarmNodeInit): string[] {
  if (init.listen !== undefined) return init.listen
  if (init.tabLinks === true && init.directLinks !== false)
    return [TAB_LINK_LISTEN, ...DEFAULT_NODE_LISTEN]
  return DEFAULT_NODE_LISTEN
}

async function nodeKey(init: NodeSwarmNodeInit): Promise<PrivateKey> {
  if (init.privateKey !== undefined) return init.privateKey
  if (init.keyFile !== undefined) return loadOrCreateKeyFile(init.keyFile)
  return generateKeyPair('Ed25519')
}

export async function createSwarmNode(init: NodeSwarmNodeInit): Promise<SwarmNode> {
  const defaults: RTCConfiguration & { bindAddress?: string } = { iceServers: [] }
  if (init.rtcBindAddress !== undefined) defaults.bindAddress = init.rtcBindAddress
  const rtcConfiguration = forNodeDatachannel(rtcConfigurationWith(defaults, init.rtcConfiguration))
  if (init.webrtc === false) {
    return createSwarm(init, {
      privateKey: await nodeKey(init),
      listen: ['/p2p-circuit'],
      transports: [
        webSockets(),
        circuitRelayTransport({ reservationCompletionTimeout: RELAY_RESERVATION_TIMEOUT_MS }),
      ],
      pingMinTimeoutMs: LINK_PING_MIN_TIMEOUT_MS,
      cannotLinkDirectly: 'no-webrtc',
    })
  }
  return createSwarm(init, {
    privateKey: await nodeKey(init),
    listen: listenAddrs(init),
    ...(init.directLinks === false ? {} : { direct: isPlainTcp }),
    pingMinTimeoutMs: LINK_PING_MIN_TIMEOUT_MS,
    transports: [
      tcp(),
      webSockets(),
      circuitRelayTransport({ reservationCompletionTimeout: RELAY_RESERVATION_TIMEOUT_MS }),
      webRTC({ rtcConfiguration }),
    ],
  })
}

/**
 * node-datachannel's RTCPeerConnection puts each TURN server's username and
 * credential into a URL, turn:USERNAME:CREDENTIAL@host, which libdatachannel
 * splits at the first ':' and percent-decodes. A coturn shared-secret
 * username ("EXPIRY:murmuration") has a ':', and its base64 credential may
 * have '/', '+' and '=': unencoded, the server gets the wrong username and
 * refuses the allocation. Percent-encoded, they arrive as sent.
 */
export function encodeIceCredentials(config: RTCConfiguration): RTCConfiguration {
  if (config.iceServers === undefined) return config
  return {
    ...config,
    iceServers: config.iceServers.map((s) =>
      s.username === undefined || s.credential === undefined
        ? s
        : {
            ...s,
            username: encodeURIComponent(s.username),
            credential: encodeURIComponent(String(s.credential)),
          },
    ),
  }
}

function forNodeDatachannel<T extends RTCConfiguration>(
  config: T | (() => Promise<T>),
): T | (() => Promise<T>) {
  if (typeof config === 'function') return async () => encodeIceCredentials(await config()) as T
  return encodeIceCredentials(config) as T
}
