/**
 * Which address space a host name is in, as Chromium's Local Network Access
 * (LNA, Chromium 142+) sees it: loopback (this machine), local (a private
 * network: RFC 1918, link-local, CGNAT, unique-local IPv6, mDNS `.local`)
 * or public. A page may only reach a *more private* space than its own from
 * a secure context, and then only with the person's permission; from a
 * plain-http page on a LAN or public address, Chromium refuses the request
 * before it leaves the browser (no packet, not even a preflight), with the
 * same bare TypeError a refused connection gives. Pure: names in, words out.
 */

export type AddressSpace = 'loopback' | 'local' | 'public' | 'unknown'

/** A hostname as URL.hostname gives it (IPv6 in brackets), or bare. */
function bare(hostname: string): string {
  return hostname.toLowerCase().replace(/^\[|\]$/g, '')
}

function ipv4(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host)
  if (!m) return null
  const parts = m.slice(1).map(Number)
  return parts.every((p) => p <= 255) ? parts : null
}

function ipv4Space([a, b]: number[]): AddressSpace {
  if (a === 127 || a === 0) return 'loopback'
  if (a === 10) return 'local'
  if (a === 172 && b! >= 16 && b! <= 31) return 'local'
  if (a === 192 && b === 168) return 'local'
  if (a === 169 && b === 254) return 'local'
  // carrier-grade NAT and the benchmarking range: private in the LNA spec
  if (a === 100 && b! >= 64 && b! <= 127) return 'local'
  if (a === 198 && (b === 18 || b === 19)) return 'local'
  return 'public'
}

export function addressSpaceOf(hostname: string): AddressSpace {
  const host = bare(hostname)
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback'
  const v4 = ipv4(host)
  if (v4) return ipv4Space(v4)
  if (host.includes(':')) {
    if (host === '::1' || host === '::') return 'loopback'
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host)?.[1]
    if (mapped && ipv4(mapped)) return ipv4Space(ipv4(mapped)!)
    if (/^f[cd]/.test(host) || /^fe[89ab]/.test(host)) return 'local'
    return 'public'
  }
  if (host.endsWith('.local')) return 'local'
  // a name: only DNS knows where it points
  return 'unknown'
}

const RANK: Record<AddressSpace, number> = { loopback: 0, local: 1, public: 2, unknown: 2 }

/**
 * Would a request from a page on `pageHost` to `targetHost` be a Local
 * Network Access request (to a more private space)? A target name we cannot
 * place is never called one; a page name we cannot place counts as public,
 * since a page reached by a name is not on this machine's loopback.
 */
export function isLocalNetworkRequest(pageHost: string, targetHost: string): boolean {
  const target = addressSpaceOf(targetHost)
  if (target === 'unknown') return false
  return RANK[target] < RANK[addressSpaceOf(pageHost)]
}
