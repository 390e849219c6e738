/**
 * Pings every connection now and then, and aborts one whose peer stopped
 * answering: what libp2p's connection monitor does, but at a cadence that
 * follows the room. libp2p's pings every connection at one fixed interval;
 * in a quiet room those pings were most of what an idle tab's links and its
 * relay connection carried (over WebRTC each ping is a new data channel;
 * over the relay's WebSocket, a yamux stream through Noise), while what
 * they catch, a peer that hangs without closing, matters only once there
 * is work again. So a quiet room pings every QUIET_LINK_PING_INTERVAL_MS,
 * and waking brings the busy interval back at once.
 *
 * Same wire protocol as libp2p's monitor (/ipfs/ping/1.0.0: 32 random bytes
 * echoed); a peer that does not speak it answers the protocol negotiation,
 * which is taken as alive (as libp2p does).
 */
import type { Connection } from '@libp2p/interface'
import { AdaptiveTimeout, byteStream } from '@libp2p/utils'
import { LINK_PING_INTERVAL_MS, QUIET_LINK_PING_INTERVAL_MS } from './constants'
import { errMsg, type NetLogger } from './log'

export const PING_PROTOCOL = '/ipfs/ping/1.0.0'
const PING_BYTES = 32

export interface LinkMonitorInit {
  /** the connections to watch (all of the node's, open or not) */
  connections: () => Connection[]
  logger: NetLogger
  /** least time a ping may take before the link is taken for dead; default libp2p's 5 s */
  minTimeoutMs?: number
  /** default LINK_PING_INTERVAL_MS */
  busyIntervalMs?: number
  /** default QUIET_LINK_PING_INTERVAL_MS */
  quietIntervalMs?: number
  signal: AbortSignal
}

/**
 * The open connections due a ping: `last` holds when each was last pinged;
 * one seen for the first time is entered there, not pinged (it just opened).
 */
export function duePings(
  connections: Connection[],
  last: WeakMap<Connection, number>,
  intervalMs: number,
  now: number,
): Connection[] {
  const due: Connection[] = []
  for (const c of connections) {
    if (c.status !== 'open') continue
    const at = last.get(c)
    if (at === undefined) last.set(c, now)
    else if (now - at >= intervalMs) due.push(c)
  }
  return due
}

export class LinkMonitor {
  private readonly init: LinkMonitorInit
  private readonly timeout: AdaptiveTimeout
  private readonly last = new WeakMap<Connection, number>()
  private readonly inFlight = new WeakSet<Connection>()

  constructor(init: LinkMonitorInit) {
    this.init = init
    this.timeout = new AdaptiveTimeout(
      init.minTimeoutMs !== undefined ? { minTimeout: init.minTimeoutMs } : {},
    )
  }

  /** Pings every connection that is due; the swarm's ticker calls this. */
  tick(quiet: boolean, now = Date.now()): void {
    if (this.init.signal.aborted) return
    const interval = quiet
      ? (this.init.quietIntervalMs ?? QUIET_LINK_PING_INTERVAL_MS)
      : (this.init.busyIntervalMs ?? LINK_PING_INTERVAL_MS)
    for (const conn of duePings(this.init.connections(), this.last, interval, now)) {
      if (this.inFlight.has(conn)) continue
      this.last.set(conn, now)
      this.inFlight.add(conn)
      this.ping(conn)
        .catch((err: unknown) => {
          if (this.init.signal.aborted || conn.status !== 'open') return
          this.init.logger.info('link ping failed: closing the link', {
            peer: conn.remotePeer.toString(),
            error: errMsg(err),
          })
          conn.abort(err instanceof Error ? err : new Error(errMsg(err)))
        })
        .finally(() => this.inFlight.delete(conn))
    }
  }

  private async ping(conn: Connection): Promise<void> {
    const signal = this.timeout.getTimeoutSignal({ signal: this.init.signal })
    let stream
    try {
      stream = await conn.newStream(PING_PROTOCOL, { signal, runOnLimitedConnection: true })
      const bytes = byteStream(stream)
      const start = Date.now()
      await Promise.all([
        bytes.write(crypto.getRandomValues(new Uint8Array(PING_BYTES)), { signal }),
        bytes.read({ bytes: PING_BYTES, signal }),
      ])
      conn.rtt = Date.now() - start
      await stream.close({ signal })
    } catch (err) {
      stream?.abort(err as Error)
      // the peer negotiated and said it has no ping: it is alive
      if ((err as Error).name !== 'UnsupportedProtocolError') throw err
    } finally {
      this.timeout.cleanUp(signal)
    }
  }
}
