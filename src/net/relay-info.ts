/**
 * Finding the relay from a web app served elsewhere: GET its /relay.json
 * (CORS open) and pick the addresses a browser on `hostname` can reach.
 */
import { errMsg } from './log'
import { InvalidInitError } from './errors'

/** The body of the relay's GET /relay.json. */
export interface RelayInfo {
  peerId: string
  multiaddrs: string[]
}

/** How long to wait for /relay.json: the relay is on the LAN. */
export const RELAY_INFO_TIMEOUT_MS = 5_000

export async function fetchRelayInfo(url: string, signal?: AbortSignal): Promise<RelayInfo> {
  const timeout = AbortSignal.timeout(RELAY_INFO_TIMEOUT_MS)
  let body: unknown
  try {
    const res = await fetch(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout })
    if (!res.ok) throw new Error(`HTTP ${res.status}`)
    body = await res.json()
  } catch (err) {
    throw new InvalidInitError(`cannot read relay info at ${url}: ${errMsg(err)}`)
  }
  const o = body as Partial<RelayInfo> | null
  if (
    typeof o?.peerId !== 'string' ||
    !Array.isArray(o.multiaddrs) ||
    !o.multiaddrs.every((m) => typeof m === 'string')
  ) {
    throw new InvalidInitError(`relay info at ${url} is malformed`)
  }
  return { peerId: o.peerId, multiaddrs: o.multiaddrs }
}

/** A relay address a page may dial: secure WebSockets (/tls/ws, /wss) or plain ones (/ws). */
export function isSecureWsAddr(ma: string): boolean {
  return /\/(tls\/ws|wss)(\/|$)/.test(ma)
}

/**
 * The relay addresses worth dialing from a page served by `hostname`: those
 * on the same host first (the page's host is reachable by definition), then
 * the rest. A page on localhost prefers the relay's loopback address. A page
 * served over https gets only secure WebSocket addresses: browsers block ws://
 * from it (mixed content), so trying one would only cost a failed dial.
 */
export function pickRelayAddrs(info: RelayInfo, hostname: string, protocol = 'http:'): string[] {
  const loopback = hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]'
  const host = hostname.replace(/^\[|\]$/g, '')
  const same = (ma: string) =>
    ma.includes(`/${host}/`) || (loopback && (ma.includes('/127.0.0.1/') || ma.includes('/::1/')))
  const usable = protocol === 'https:' ? info.multiaddrs.filter(isSecureWsAddr) : info.multiaddrs
  return [...usable.filter(same), ...usable.filter((m) => !same(m))]
}
