/**
 * For the relay's tests: a bare libp2p client, WebSockets to the relay and
 * listening on /p2p-circuit, so that it asks the relay for a reservation as
 * soon as it is connected.
 */
import { createLibp2p } from 'libp2p'
import { circuitRelayTransport } from '@libp2p/circuit-relay-v2'
import { identify } from '@libp2p/identify'
import { noise } from '@libp2p/noise'
import { yamux } from '@libp2p/yamux'
import { webSockets } from '@libp2p/websockets'
import type { Libp2p } from '@libp2p/interface'

export async function reservingClient(): Promise<Libp2p> {
  return createLibp2p({
    addresses: { listen: ['/p2p-circuit'] },
    transports: [webSockets(), circuitRelayTransport()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: { identify: identify() },
  })
}
