/**
 * The relay's connection gater: per-address caps on connections, on
 * handshakes in progress and on circuit relay reservations (limits.ts).
 *
 * libp2p's own caps are global (maxConnections, maxIncomingPendingConnections,
 * the reservation store's size) or a rate (inboundConnectionThreshold): one
 * host could fill each of them alone. This gater runs at the two points where
 * libp2p asks: `denyInboundConnection`, with the socket's address, before any
 * handshake; `denyInboundRelayReservation`, with the PeerId of a connected
 * peer. Every refusal goes to the RefusalLog (one line per kind and address).
 */
import type { ConnectionGater, MultiaddrConnection, PeerId } from '@libp2p/interface'
import type { Multiaddr } from '@multiformats/multiaddr'
import { addressKey, type AddressLimits, type RefusalLog } from './limits'

/** The remote IP of a multiaddr (/ip4/… or /ip6/…), or undefined (e.g. a relayed one). */
export function ipOf(ma: Multiaddr): string | undefined {
  for (const c of ma.getComponents()) {
    if (c.name === 'ip4' || c.name === 'ip6') return c.value
  }
  return undefined
}

/** The address key of a multiaddr (limits.ts: addressKey), or undefined. */
export function addressOf(ma: Multiaddr): string | undefined {
  const ip = ipOf(ma)
  return ip === undefined ? undefined : addressKey(ip)
}

export interface AddressGaterInit {
  limits: AddressLimits
  refusals: RefusalLog
  /** established connections from address key `address` */
  connectionsFrom(address: string): number
  /** the address key of a connected peer, or undefined */
  addressOfPeer(peer: PeerId): string | undefined
  /** reservations held from address key `address` by peers other than `except` */
  reservationsFrom(address: string, except: PeerId): number
  now?: () => number
}

export interface AddressGater extends Partial<ConnectionGater> {
  /** handshakes in progress from `address` (for tests) */
  pending(address: string): number
}

export function addressGater(init: AddressGaterInit): AddressGater {
  const now = init.now ?? Date.now
  const uncapped = (address: string) => init.limits.uncappedAddresses.includes(address)
  // sockets accepted but not yet upgraded, per address; each leaves on close or upgrade
  const pending = new Map<string, Set<MultiaddrConnection>>()
  const settle = (address: string, maConn: MultiaddrConnection) => {
    const set = pending.get(address)
    if (set === undefined) return
    set.delete(maConn)
    if (set.size === 0) pending.delete(address)
  }

  return {
    pending: (address) => pending.get(address)?.size ?? 0,

    denyInboundConnection: (maConn) => {
      const address = addressOf(maConn.remoteAddr)
      if (address === undefined || uncapped(address)) return false
      const inFlight = pending.get(address)?.size ?? 0
      if (inFlight >= init.limits.pendingPerAddress) {
        init.refusals.refuse(
          'handshake',
          address,
          `${inFlight} handshakes in progress from there (cap ${init.limits.pendingPerAddress})`,
          now(),
        )
        return true
      }
      const open = init.connectionsFrom(address) + inFlight
      if (open >= init.limits.connectionsPerAddress) {
        init.refusals.refuse(
          'connection',
          address,
          `${open} connections from there (cap ${init.limits.connectionsPerAddress})`,
          now(),
        )
        return true
      }
      let set = pending.get(address)
      if (set === undefined) pending.set(address, (set = new Set()))
      set.add(maConn)
      maConn.addEventListener('close', () => settle(address, maConn), { once: true })
      return false
    },

    // the upgrade is done (the connection now counts as established)
    denyInboundUpgradedConnection: (_peer, maConn) => {
      const address = addressOf(maConn.remoteAddr)
      if (address !== undefined) settle(address, maConn)
      return false
    },

    denyInboundRelayReservation: (peer) => {
      const address = init.addressOfPeer(peer)
      if (address === undefined || uncapped(address)) return false
      const held = init.reservationsFrom(address, peer)
      if (held >= init.limits.reservationsPerAddress) {
        init.refusals.refuse(
          'reservation',
          address,
          `${held} reservations held from there (cap ${init.limits.reservationsPerAddress})`,
          now(),
        )
        return true
      }
      return false
    },
  }
}
