/**
 * How each direct WebRTC link goes, read from its RTCPeerConnection's
 * selected ICE candidate pair (getStats): straight across the LAN, through
 * the NATs (STUN found the way), or relayed by a TURN server.
 *
 * `classifyStats` is the rule, a plain function of one stats report;
 * `LinkPaths` asks each link's RTCPeerConnection now and then and keeps
 * the answers, and says whether a link has carried data yet. Links that are not WebRTC (TCP between Node peers) have no
 * path.
 */
import type { Connection } from '@libp2p/interface'
import { errMsg, type NetLogger } from './log'

/**
 * - lan: host candidates on both ends: the peers reach each other's own address
 * - nat: a server-reflexive or peer-reflexive address: through the NATs, no relay
 * - turn: a relay candidate: every byte goes through the TURN server
 * - direct: direct, but the report does not say which way (a redacted address)
 */
export type LinkPath = 'lan' | 'nat' | 'turn' | 'direct'

/** The fields of RTCStats entries this reads (browsers and node-datachannel). */
interface StatsEntry {
  id: string
  type: string
  selectedCandidatePairId?: string
  localCandidateId?: string
  remoteCandidateId?: string
  selected?: boolean
  nominated?: boolean
  state?: string
  candidateType?: string
  address?: string
  ip?: string
}

/** Loopback, private, link-local and mDNS (.local) addresses: the peer is on our network. */
export function isLocalAddress(address: string): boolean {
  const a = address.toLowerCase()
  if (a.endsWith('.local')) return true
  const v4 = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(a)
  if (v4) {
    const [x, y] = [Number(v4[1]), Number(v4[2])]
    return (
      x === 10 ||
      x === 127 ||
      (x === 172 && y >= 16 && y <= 31) ||
      (x === 192 && y === 168) ||
      (x === 169 && y === 254)
    )
  }
  return a === '::1' || /^f[cd]/.test(a) || /^fe[89ab]/.test(a)
}

/** The selected pair's path, or undefined while no pair is selected. */
export function classifyStats(report: Iterable<StatsEntry>): LinkPath | undefined {
  const byId = new Map<string, StatsEntry>()
  for (const entry of report) byId.set(entry.id, entry)
  const entries = [...byId.values()]
  const transport = entries.find((e) => e.type === 'transport' && e.selectedCandidatePairId)
  const pair =
    (transport && byId.get(transport.selectedCandidatePairId!)) ??
    entries.find(
      (e) =>
        e.type === 'candidate-pair' &&
        (e.selected === true || (e.nominated && e.state === 'succeeded')),
    )
  if (pair === undefined) return undefined
  const local = byId.get(pair.localCandidateId ?? '')
  const remote = byId.get(pair.remoteCandidateId ?? '')
  if (local === undefined || remote === undefined) return undefined
  if (local.candidateType === 'relay' || remote.candidateType === 'relay') return 'turn'
  if (remote.candidateType === 'srflx' || local.candidateType === 'srflx') return 'nat'
  // a peer-reflexive address is one its side never announced: a NAT's, or the
  // host's own, hidden behind an mDNS name (every page without a media
  // permission, so a friend's on a flat LAN); only the address tells
  for (const side of [local, remote]) {
    if (side.candidateType !== 'prflx') continue
    const address = side.address ?? side.ip ?? ''
    if (address === '') return 'direct'
    if (!isLocalAddress(address)) return 'nat'
  }
  return 'lan'
}

/** The RTCPeerConnection under a libp2p WebRTC connection (@libp2p/webrtc keeps it on its maConn). */
function peerConnectionOf(conn: Connection): { getStats(): Promise<RTCStatsReport> } | undefined {
  const pc = (conn as unknown as { maConn?: { peerConnection?: unknown } }).maConn?.peerConnection
  return typeof (pc as RTCPeerConnection | undefined)?.getStats === 'function'
    ? (pc as RTCPeerConnection)
    : undefined
}

/** The wait after the first look at a new link (at once); it doubles after each look. */
export const LINK_PROBE_FIRST_MS = 500
/**
 * Later looks back off up to this: the path of a link can change (ICE keeps
 * checking and may move a link from TURN to a direct pair), and one getStats
 * call per link every half minute costs an idle tab nothing worth counting.
 */
export const LINK_PROBE_MAX_MS = 30_000
/**
 * In a quiet room (topology.ts quietAfterMs) a link is looked at this often:
 * its path has long settled, and in Firefox each getStats is a round trip to
 * the socket process that an idle tab paid every half minute per link
 * (bench:idle). Waking brings LINK_PROBE_MAX_MS back at once.
 */
export const QUIET_LINK_PROBE_MS = 5 * 60_000

interface Probe {
  path: LinkPath | undefined
  due: number
  wait: number
  busy: boolean
}

export interface LinkPathsInit {
  /** a path was found or changed */
  onChange: () => void
  logger: NetLogger
  now?: () => number
}

export class LinkPaths {
  private readonly probes = new WeakMap<Connection, Probe>()
  private readonly carried = new WeakSet<Connection>()
  private readonly now: () => number
  private quiet = false

  constructor(private readonly init: LinkPathsInit) {
    this.now = init.now ?? Date.now
  }

  /** Identify ran over this link: it carries data; look at its path now. */
  identified(conn: Connection): void {
    this.carried.add(conn)
    this.tick([conn], this.quiet)
  }

  /**
   * Data went both ways over this link: identify ran, or a stream on it has
   * agreed on a protocol (multistream-select needs an answer), so a busy
   * machine whose identify timed out still counts a working link.
   */
  carries(conn: Connection): boolean {
    if (this.carried.has(conn)) return true
    if (!conn.streams.some((st) => Boolean(st.protocol))) return false
    this.carried.add(conn)
    return true
  }

  /** The last path seen for this link (undefined: not WebRTC, or not known yet). */
  path(conn: Connection): LinkPath | undefined {
    return this.probes.get(conn)?.path
  }

  /** Looks at the links whose turn it is; `quiet`: the room is quiet (QUIET_LINK_PROBE_MS). */
  tick(conns: Iterable<Connection>, quiet = false): void {
    const now = this.now()
    this.quiet = quiet
    for (const conn of conns) {
      const pc = peerConnectionOf(conn)
      if (pc === undefined) continue
      let probe = this.probes.get(conn)
      if (probe === undefined) {
        probe = { path: undefined, due: now, wait: LINK_PROBE_FIRST_MS, busy: false }
        this.probes.set(conn, probe)
      }
      // awake again: a quiet room's long wait is cut back to the busy one
      if (!quiet) probe.due = Math.min(probe.due, now + LINK_PROBE_MAX_MS)
      if (probe.busy || now < probe.due) continue
      probe.busy = true
      const p = probe
      void pc
        .getStats()
        .then((report) => {
          const path = classifyStats(report.values() as Iterable<StatsEntry>)
          if (path !== p.path) {
            p.path = path
            this.init.onChange()
          }
        })
        .catch((err) => this.init.logger.info('link stats failed', { error: errMsg(err) }))
        .finally(() => {
          p.busy = false
          p.due = this.now() + (this.quiet ? Math.max(p.wait, QUIET_LINK_PROBE_MS) : p.wait)
          p.wait = Math.min(p.wait * 2, LINK_PROBE_MAX_MS)
        })
    }
  }
}
