/**
 * The connection gater's side of a ban (strikes.ts): every hook libp2p
 * offers that names the remote peer refuses a banned one, so a ban refuses
 * links as early as libp2p can tell who is at the other end:
 *
 * - our dials: `denyDialPeer`, before any dial is attempted (and
 *   `denyOutboundConnection`, before the handshake, for a dial that reached
 *   the transport anyway);
 * - inbound through a relay (and so every WebRTC link, which is signalled
 *   over one): `denyInboundRelayedConnection`, when the relay's STOP names
 *   the peer, before any handshake;
 * - inbound TCP or WebSocket: the remote PeerId is known only once the
 *   Noise handshake has authenticated it; `denyInboundConnection` sees only
 *   an address (tabs and agents share IPs, so none can be refused by it), so
 *   `denyInboundEncryptedConnection` refuses it right after the handshake,
 *   before the muxer and before any stream;
 * - `denyIn/OutboundEncryptedConnection` and `denyIn/OutboundUpgradedConnection`
 *   for links whose transport skips the hooks above (WebRTC's own upgrade).
 *
 * `isBanned` answers for the PeerId's member too (strikes.ts): every PeerId
 * of a banned member is refused, one bound after the ban included.
 * A ban that starts while links are open closes them (swarm.ts).
 */
import type { ConnectionGater, PeerId } from '@libp2p/interface'

export function banGater(isBanned: (peerId: string) => boolean): Partial<ConnectionGater> {
  const banned = (peerId: PeerId) => isBanned(peerId.toString())
  return {
    denyDialPeer: banned,
    denyOutboundConnection: banned,
    denyInboundRelayedConnection: (_relay, remotePeer) => banned(remotePeer),
    denyInboundEncryptedConnection: banned,
    denyOutboundEncryptedConnection: banned,
    denyInboundUpgradedConnection: banned,
    denyOutboundUpgradedConnection: banned,
  }
}
