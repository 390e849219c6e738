/**
 * Finding the relays: the app's origin serves GET /relay.json, naming its own
 * relay and any others it was started with (`npm start -- --relay …`); a
 * standalone relay serves its own (CORS open). A peer keeps a connection to
 * every relay named (relay-client.ts) and picks, for each, the addresses a
 * browser on `hostname` can reach.
 */
import { errMsg } from './log'
import { InvalidInitError } from './errors'

/** One relay: its PeerId and WebSocket multiaddrs, each ending in /p2p/<peerId>. */
export interface RelayAddrs {
  peerId: string
  multiaddrs: string[]
}

/** The body of GET /relay.json: the origin's own relay, and the other relays of its list. */
export interface RelayInfo extends RelayAddrs {
  /** other relays to register with as well; absent from a standalone relay's document */
  relays?: RelayAddrs[]
}

/** How long to wait for /relay.json: the app's own origin, or a relay it names. */
export const RELAY_INFO_TIMEOUT_MS = 5_000

function isRelayAddrs(o: unknown): o is RelayAddrs {
  const r = o as Partial<RelayAddrs> | null
  return (
    typeof r?.peerId === 'string' &&
    Array.isArray(r.multiaddrs) &&
    r.multiaddrs.every((m) => typeof m === 'string')
  )
}

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
  const o = body as RelayInfo | null
  const others: unknown = o?.relays ?? []
  if (!isRelayAddrs(o) || !Array.isArray(others) || !others.every(isRelayAddrs)) {
    throw new InvalidInitError(`relay info at ${url} is malformed`)
  }
  const info: RelayInfo = { peerId: o.peerId, multiaddrs: o.multiaddrs }
  if (others.length > 0)
    info.relays = others.map((r) => ({ peerId: r.peerId, multiaddrs: r.multiaddrs }))
  return info
}

/** A relay address a page may dial: secure WebSockets (/tls/ws, /wss) or plain ones (/ws). */
export function isSecureWsAddr(ma: string): boolean {
  return /\/(tls\/ws|wss)(\/|$)/.test(ma)
}

/**
 * The relay addresses worth dialing from a page served by `hostname`, for
 * every relay the document names (its own first): for each relay, those on
 * the page's host first (the page's host is reachable by definition), then
 * the rest. A page on localhost prefers a relay's loopback address. A page
 * served over https gets only secure WebSocket addresses: browsers block ws://
 * from it (mixed content), so trying one would only cost a failed dial.
 */
export function pickRelayAddrs(info: RelayInfo, hostname: string, protocol = 'http:'): string[] {
  const loopback = hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]'
  const host = hostname.replace(/^\[|\]$/g, '')
  const same = (ma: string) =>
    ma.includes(`/${host}/`) || (loopback && (ma.includes('/127.0.0.1/') || ma.includes('/::1/')))
  return [info, ...(info.relays ?? [])].flatMap((relay) => {
    const usable =
      protocol === 'https:' ? relay.multiaddrs.filter(isSecureWsAddr) : relay.multiaddrs
    return [...usable.filter(same), ...usable.filter((m) => !same(m))]
  })
}
