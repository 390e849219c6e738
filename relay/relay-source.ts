/**
 * What `--relay` takes: a relay's WebSocket multiaddr ending in /p2p/<peerId>
 * (`/dns4/relay.example.org/tcp/443/tls/ws/p2p/12D3KooW…`), or the http(s) URL
 * of its /relay.json. Plain string checks: options.ts loads this module to
 * check a command line before anything that loads libp2p.
 */

/** An Ed25519 or RSA PeerId in base58btc, as a multiaddr carries it. */
const PEER_ID = /^(12D3KooW|Qm)[1-9A-HJ-NP-Za-km-z]{20,}$/

/** The PeerId a multiaddr ends with, or undefined. */
export function peerIdOfAddr(addr: string): string | undefined {
  const match = /\/p2p\/([^/]+)$/.exec(addr)
  return match !== null && PEER_ID.test(match[1]!) ? match[1] : undefined
}

/** A WebSocket multiaddr (…/ws, …/wss, …/tls/ws) of a relay, with its PeerId at the end. */
export function isRelayMultiaddr(addr: string): boolean {
  return (
    /^\/(ip4|ip6|dns|dns4|dns6)\/[^/]+\/tcp\/\d+(\/[^/]+)*\/(ws|wss)\/p2p\/[^/]+$/.test(addr) &&
    peerIdOfAddr(addr) !== undefined
  )
}

/** An http(s) URL, taken as a relay's /relay.json (`npm run relay` prints it). */
export function isRelayInfoUrl(source: string): boolean {
  try {
    const url = new URL(source)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}
