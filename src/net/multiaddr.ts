/** Multiaddr helpers (multiaddr 13 dropped getPeerId()). */
import type { Multiaddr } from '@multiformats/multiaddr'

/** The last /p2p/<id> of an address, or undefined. */
export function peerIdOf(ma: Multiaddr): string | undefined {
  let id: string | undefined
  for (const c of ma.getComponents()) if (c.name === 'p2p' && c.value !== undefined) id = c.value
  return id
}
