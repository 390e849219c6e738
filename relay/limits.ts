/**
 * What one network address may take of a relay that faces the internet, and
 * the log of what it was refused. Pure: no libp2p, the clock is handed in.
 *
 * "Address" is the remote IP, except that IPv6 counts per /64 (one home or
 * one VM gets a whole /64, so per-IP caps would be no cap there) and an
 * IPv4-mapped IPv6 address counts as its IPv4 address.
 *
 * The caps are generous for people (all tabs of a laptop, a household, or a
 * small classroom behind one NAT come from one address) and small against
 * one host that opens connections, reservations or discovery streams in a
 * loop: the relay's global caps (relay.ts) are then never filled by a
 * single address, so honest peers still get in.
 */
import { isIPv4, isIPv6 } from 'node:net'
import type { NetLogger } from '../src/net/log'

/**
 * Connections open or being set up from one address. Each tab or agent keeps
 * one to the relay (relayed links are streams inside it, not connections);
 * 128 is ~40 laptops of 3 tabs behind one NAT, and 1/16 of the relay's total.
 */
export const RELAY_MAX_CONNECTIONS_PER_ADDRESS = 128

/**
 * Handshakes (Noise, then yamux) in progress from one address. One takes a
 * few ms; a host that opens sockets and stays silent holds a slot until the
 * upgrade timeout (10 s). 32 is a browser restoring a window of tabs at once,
 * and a quarter of the relay's pending slots (RELAY_MAX_PENDING_CONNECTIONS).
 */
export const RELAY_MAX_PENDING_PER_ADDRESS = 32

/**
 * Circuit relay reservations held from one address: one per tab or agent.
 * The circuit relay server has a total cap only; without this one a single
 * host with fresh PeerIds takes all of them. 64 of the relay's 512.
 */
export const RELAY_MAX_RESERVATIONS_PER_ADDRESS = 64

/**
 * Room-discovery requests (a stream naming a room) from one address: a
 * token bucket. A tab asks once per link to the relay, and again only after
 * that link drops; the burst lets a NAT's worth of tabs join at once, the
 * rate lets them rejoin after a relay restart within ~15 s.
 */
export const DISCOVER_BURST_PER_ADDRESS = 64
export const DISCOVER_REFILL_PER_S_PER_ADDRESS = 4

/**
 * Refusals after the first of a kind from one address are counted and
 * summarised this often, in one line per (kind, address): never a line per
 * refusal, however hard a host floods.
 */
export const REFUSAL_SUMMARY_MS = 60_000

/**
 * A (kind, address) seen refused but quiet for this long is forgotten: its
 * next refusal is logged again (a new flood, worth a line).
 */
export const REFUSAL_FORGET_MS = 10 * 60_000

/**
 * Distinct (kind, address) pairs the log remembers. Refusals from further
 * addresses (a flood from many) are counted together under "other
 * addresses", so the log's own memory is bounded too.
 */
export const REFUSAL_MAX_KEYS = 1_024

/**
 * Addresses no per-address cap applies to (the relay's global caps still
 * do): loopback, from where the app server's wss pass-through (`npm start
 * --https`) and a reverse proxy on the same host (deploy/: Caddy, nginx)
 * connect for every browser behind them. A cap there would cap the whole
 * relay at one NAT's worth of tabs; per-client limits belong to the proxy
 * (deploy/nginx.conf). Only these two: other loopback addresses, such as the
 * flood test's 127.0.0.2, count as hosts of their own.
 */
export const RELAY_UNCAPPED_ADDRESSES: readonly string[] = ['127.0.0.1', '::1']

/** Per-address caps; the defaults are the constants above. */
export interface AddressLimits {
  /** address keys (addressKey) exempt from the caps below */
  uncappedAddresses: readonly string[]
  connectionsPerAddress: number
  pendingPerAddress: number
  reservationsPerAddress: number
  discoverBurstPerAddress: number
  discoverRefillPerSPerAddress: number
}

export const DEFAULT_ADDRESS_LIMITS: AddressLimits = {
  uncappedAddresses: RELAY_UNCAPPED_ADDRESSES,
  connectionsPerAddress: RELAY_MAX_CONNECTIONS_PER_ADDRESS,
  pendingPerAddress: RELAY_MAX_PENDING_PER_ADDRESS,
  reservationsPerAddress: RELAY_MAX_RESERVATIONS_PER_ADDRESS,
  discoverBurstPerAddress: DISCOVER_BURST_PER_ADDRESS,
  discoverRefillPerSPerAddress: DISCOVER_REFILL_PER_S_PER_ADDRESS,
}

/**
 * The key limits count under for `ip`: IPv4 as it is, an IPv4-mapped IPv6
 * address as its IPv4 address, other IPv6 as its /64 ("2001:db8:1:2::/64");
 * anything else (not an IP) as it is.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (mapped) return mapped[1] as string
  if (isIPv4(ip) || !isIPv6(ip)) return ip
  const groups = expandIPv6(ip)
  return `${groups.slice(0, 4).join(':')}::/64`
}

/** The eight 16-bit groups of an IPv6 address, in lower-case hex without leading zeros. */
function expandIPv6(ip: string): string[] {
  const [head = '', tail] = ip.toLowerCase().split('::')
  const parse = (s: string) => (s === '' ? [] : s.split(':'))
  let left = parse(head)
  let right = tail === undefined ? [] : parse(tail)
  // a dotted IPv4 tail (::ffff:1.2.3.4 handled above; e.g. 64:ff9b::1.2.3.4) is two groups
  const fix = (g: string[]) =>
    g.flatMap((x) => {
      if (!x.includes('.')) return [x]
      const [a = 0, b = 0, c = 0, d = 0] = x.split('.').map(Number)
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)]
    })
  left = fix(left)
  right = fix(right)
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0')
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16).toString(16))
}

/** The kinds of refusal the relay logs. */
export type RefusalKind =
  | 'connection'
  | 'handshake'
  | 'reservation'
  | 'discovery request'
  | 'room'
  | 'room member'
  | 'relayed peer'
  | 'relayed link'

interface RefusalEntry {
  /** refusals since the last line about this key */
  unreported: number
  total: number
  lastAt: number
}

const OTHER_ADDRESSES = 'other addresses'

/**
 * Logs the first refusal of each kind from each address at once, then counts:
 * `flush` (every REFUSAL_SUMMARY_MS) prints one line per key with the count
 * since the last line.
 */
export class RefusalLog {
  private readonly entries = new Map<string, RefusalEntry>()

  constructor(
    private readonly logger: NetLogger,
    private readonly maxKeys = REFUSAL_MAX_KEYS,
  ) {}

  refuse(kind: RefusalKind, address: string, why: string, now: number): void {
    let key = `${kind}|${address}`
    let entry = this.entries.get(key)
    if (entry === undefined && this.entries.size >= this.maxKeys) {
      key = `${kind}|${OTHER_ADDRESSES}`
      entry = this.entries.get(key)
    }
    if (entry === undefined) {
      this.entries.set(key, { unreported: 0, total: 1, lastAt: now })
      const from = key.endsWith(OTHER_ADDRESSES) ? OTHER_ADDRESSES : address
      this.logger.warn(
        `refused a ${kind} from ${from}: ${why} (more from there are counted, one line a minute)`,
      )
      return
    }
    entry.unreported++
    entry.total++
    entry.lastAt = now
  }

  /** One line per key refused again since its last line; forgets keys quiet for REFUSAL_FORGET_MS. */
  flush(now: number): void {
    for (const [key, entry] of this.entries) {
      const [kind, address] = key.split('|') as [string, string]
      if (entry.unreported > 0) {
        this.logger.warn(
          `refused ${entry.unreported} more ${kind}s from ${address} (${entry.total} in all)`,
        )
        entry.unreported = 0
      } else if (now - entry.lastAt > REFUSAL_FORGET_MS) {
        this.entries.delete(key)
      }
    }
  }

  /** Refusals so far by "kind|address" (for tests and a status line). */
  totals(): Map<string, number> {
    return new Map([...this.entries].map(([k, e]) => [k, e.total]))
  }
}
