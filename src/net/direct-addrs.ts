/**
 * Direct addresses (TCP or WebSocket, neither relayed nor WebRTC): which of
 * a peer's the dialer may try (dialer.ts), and what a failed dial to them
 * means; which of them a page may open. Pure: a page's location is passed
 * in.
 */
import type { Multiaddr } from '@multiformats/multiaddr'

/**
 * A dial that reached the peer and failed while upgrading the connection
 * (the Noise handshake, the muxer): libp2p names these errors so.
 */
export function isUpgradeError(err: unknown): boolean {
  const e = err as { name?: unknown; errors?: unknown } | null
  // a dial to several addresses fails with all their errors
  if (Array.isArray(e?.errors)) return e.errors.some(isUpgradeError)
  return e?.name === 'EncryptionFailedError' || e?.name === 'MuxerUnavailableError'
}

/** An address over TCP (plain or WebSocket) with no relay or WebRTC in it. */
export function isDirect(addr: Multiaddr): boolean {
  const names = addr.getComponents().map((c) => c.name)
  if (!names.includes('tcp')) return false
  return !names.some((n) => n === 'p2p-circuit' || n === 'webrtc' || n === 'webrtc-direct')
}

/** A WebSocket address (`/ws`, `/tls/ws`, `/wss`). */
export function isWebSocket(addr: Multiaddr): boolean {
  return addr.getComponents().some((c) => c.name === 'ws' || c.name === 'wss')
}

/**
 * Between Node peers: plain TCP. Their WebSocket addresses are for tabs;
 * dialled together with the TCP one, a flood of records took a third longer
 * to settle in runtime/flood.node.test.ts.
 */
export function isPlainTcp(addr: Multiaddr): boolean {
  return !isWebSocket(addr)
}

/**
 * Of a peer's known addresses, the direct ones (isDirect) that `accept`
 * lets through, each ending in the peer's id.
 */
export function directAddrs(
  peerId: string,
  addresses: { multiaddr: Multiaddr }[],
  accept: (addr: Multiaddr) => boolean = () => true,
): Multiaddr[] {
  const direct: Multiaddr[] = []
  for (const { multiaddr: addr } of addresses) {
    if (!isDirect(addr) || !accept(addr)) continue
    const named = addr.getComponents().some((c) => c.name === 'p2p')
    direct.push(named ? addr : addr.encapsulate(`/p2p/${peerId}`))
  }
  return direct
}

/** Where a page was loaded from (`location`). */
export interface PageLocation {
  protocol: string
  hostname: string
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

/** A loopback host name or address: this machine. */
export function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127\./.test(host)
}

/**
 * Which direct addresses a tab at `page` may dial (the dialer's `direct`):
 * a Node agent's WebSocket, when the page can open it.
 * - WebSocket only (`/ws`, `/tls/ws`, `/wss`): a page cannot open TCP.
 * - A loopback address only from a page on loopback: from anywhere else it
 *   names the visitor's own machine, not the agent's (and Chromium asks
 *   before a LAN page reaches loopback).
 * - Plain `ws` from an https page only to loopback: anything else is mixed
 *   content, which the browser blocks.
 */
export function pageMayDial(page: PageLocation): (addr: Multiaddr) => boolean {
  const pageLoopback = isLoopback(page.hostname)
  const secure = page.protocol === 'https:'
  return (addr) => {
    const parts = addr.getComponents()
    const names = parts.map((c) => c.name)
    const tls = names.includes('wss') || names.includes('tls')
    if (!isWebSocket(addr)) return false
    const host = parts[0]?.value
    if (host === undefined) return false
    const loopback = isLoopback(host)
    if (loopback && !pageLoopback) return false
    return tls || !secure || loopback
  }
}
