/**
 * createSwarmNode for browser tabs: WebSockets to the relay, the circuit relay
 * transport (reservation + signalling), and WebRTC for the direct links that
 * carry gossip and sync. Listens on /p2p-circuit and /webrtc (the /webrtc
 * address appears once the relay reservation is made).
 *
 * The node lives on the tab's main thread: browsers offer no
 * RTCPeerConnection inside workers.
 */
import { circuitRelayTransport } from '@libp2p/circuit-relay-v2'
import { webRTC } from '@libp2p/webrtc'
import { webSockets } from '@libp2p/websockets'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { DEFAULT_ROOM, RELAY_RESERVATION_TIMEOUT_MS } from './constants'
import { acquireTabIdentity, type TabIdentityInit } from './identity.browser'
import { returningTab } from './returning.browser'
import { createSwarm } from './swarm'
import { rtcConfigurationWith } from './ice-config'
import { isLoopback, pageMayDial } from './direct-addrs'
import type { SwarmNode, SwarmNodeInitBase } from './types'

export interface BrowserSwarmNodeInit extends SwarmNodeInitBase {
  /**
   * When `privateKey` is not given, the tab's own identity is taken from
   * IndexedDB (identity.browser.ts): same PeerId after a reload, a different
   * one in every other tab. These options namespace it.
   */
  identity?: TabIdentityInit
}

export const BROWSER_LISTEN = ['/p2p-circuit', '/webrtc']

/**
 * Whether this browser can make WebRTC links: it has RTCPeerConnection. One
 * without (none built in, or turned off: Firefox's media.peerconnection.enabled,
 * an extension, a company policy) takes part through the relay (fallback.ts).
 */
export function hasWebRtc(): boolean {
  return typeof globalThis.RTCPeerConnection === 'function'
}

export async function createSwarmNode(init: BrowserSwarmNodeInit): Promise<SwarmNode> {
  const identity =
    init.privateKey === undefined ? await acquireTabIdentity(init.identity) : undefined
  const privateKey = init.privateKey ?? identity?.privateKey
  if (privateKey === undefined) throw new Error('unreachable: no private key')
  const tab = returningTab(init.room ?? DEFAULT_ROOM, peerIdFromPrivateKey(privateKey).toString())
  const webrtc = hasWebRtc()
  try {
    return await createSwarm(init, {
      privateKey,
      listen: webrtc ? BROWSER_LISTEN : ['/p2p-circuit'],
      transports: [
        webSockets(),
        circuitRelayTransport({ reservationCompletionTimeout: RELAY_RESERVATION_TIMEOUT_MS }),
        ...(webrtc
          ? [
              webRTC({
                rtcConfiguration: rtcConfigurationWith({ iceServers: [] }, init.rtcConfiguration),
              }),
            ]
          : []),
      ],
      ...(webrtc ? {} : { cannotLinkDirectly: 'no-webrtc' as const }),
      // a Node agent's WebSocket, where the page can open it (direct-addrs.ts).
      // Agents listen on loopback (node.node.ts), so only a page of their
      // machine can: only there is it worth the identify that then opens
      // each of the tab's dials (half a second more to link with a tab)
      ...(isLoopback(globalThis.location.hostname)
        ? { direct: pageMayDial(globalThis.location) }
        : {}),
      // the default browser gater refuses private and loopback addresses,
      // which is exactly where a LAN relay lives
      gater: { denyDialMultiaddr: () => false },
      returning: tab.returning,
      onStopped: () => {
        tab.stop()
        identity?.release()
      },
    })
  } catch (err) {
    tab.stop()
    identity?.release()
    throw err
  }
}
