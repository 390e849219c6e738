/** A ConnectionSummary for the UI's unit tests: the counts follow the links given. */
import type { ConnectionSummary, PeerLink } from '../../runtime/types'

export function summary(
  peers: PeerLink[],
  known = peers.length,
  more: Partial<ConnectionSummary> = {},
): ConnectionSummary {
  const n = (k: PeerLink['kind']) => peers.filter((p) => p.kind === k).length
  return {
    relay: 'up',
    relays: [],
    peers,
    direct: n('direct-webrtc'),
    relayed: n('relayed'),
    other: n('other'),
    viaRelay: n('via-relay'),
    known,
    quiet: false,
    unreachable: [],
    ...more,
  }
}
