/**
 * When the swarm syncs (sync.ts runs each anti-entropy session): with a
 * random few of its links on demand (`syncNow`), and again after a session
 * that left something behind, back to back while a big late join brings
 * records (sync-session.ts syncAgain).
 */
import type { Connection, Stream } from '@libp2p/interface'
import { firstEnough } from './enough'
import { NodeStoppedError } from './errors'
import { errMsg, type NetLogger } from './log'
import { Syncer } from './sync'
import { syncAgain } from './sync-session'
import type { RecordStore, SyncReport } from './types'

export interface SyncRoundsInit {
  room: string
  store: RecordStore
  logger: NetLogger
  /** aborted when the node stops: every session ends, no round starts */
  signal: AbortSignal
  /** a peer broke the protocol or sent junk */
  onStrike: (peerId: string, reason: string) => void
  /** our open links, one or more per peer */
  links: () => Connection[]
  /** a session ended */
  onReport: (report: SyncReport) => void
}

export class SyncRounds {
  private readonly syncer: Syncer
  private retries = 0
  private retryTimer: ReturnType<typeof setTimeout> | undefined

  constructor(private readonly init: SyncRoundsInit) {
    this.syncer = new Syncer({
      room: init.room,
      store: init.store,
      logger: init.logger,
      signal: init.signal,
      onStrike: init.onStrike,
      // a session whose link a newer one replaced (relink.ts) resumes on the newest
      linkTo: (peer) =>
        init
          .links()
          .filter((c) => c.remotePeer.toString() === peer)
          .sort((a, b) => b.timeline.open - a.timeline.open)[0],
      onSession: (report) => this.sessionEnded(report),
    })
  }

  /** Answers a session the peer opened. */
  readonly handle = (stream: Stream, conn: Connection): void => this.syncer.handle(stream, conn)

  /** Opens a session with the peer at the other end of `conn`. */
  syncWith(conn: Connection): Promise<SyncReport> {
    return this.syncer.syncWith(conn)
  }

  /** SwarmNode.syncNow (types.ts): a session with every linked peer, or `peers` of them at random. */
  async syncNow(options: { enough?: number; peers?: number } = {}): Promise<SyncReport[]> {
    if (this.init.signal.aborted) throw new NodeStoppedError('node stopped')
    // one session per peer, even if a peer has two direct connections
    const byPeer = new Map<string, Connection>()
    for (const c of this.init.links()) byPeer.set(c.remotePeer.toString(), c)
    const links = [...byPeer.values()]
    // a random few (Fisher–Yates, the first `peers` places)
    const count = Math.min(options.peers ?? links.length, links.length)
    for (let i = 0; i < count; i++) {
      const j = i + Math.floor(Math.random() * (links.length - i))
      ;[links[i], links[j]] = [links[j]!, links[i]!]
    }
    const sessions = links.slice(0, count).map((c) => this.syncer.syncWith(c))
    return firstEnough(sessions, options.enough ?? sessions.length, (r) => r.error === undefined)
  }

  /** No retry after stop. */
  stop(): void {
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer)
  }

  private sessionEnded(report: SyncReport): void {
    const { logger, signal } = this.init
    if (report.accepted > 0 || report.sent > 0 || report.error !== undefined) {
      logger.info('sync session', { ...report })
    }
    this.init.onReport(report)
    // a big late join takes one session per SYNC_MAX_WANT_PER_SESSION
    // records, back to back (sync-session.ts: syncAgain)
    const again = syncAgain(report, this.retries)
    this.retries = again.retries
    if (again.delayMs !== undefined && !signal.aborted && this.retryTimer === undefined) {
      this.retries++
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined
        // a session can end after stop() began; a retry then has nothing to do
        if (signal.aborted) return
        this.syncNow().catch((err) => logger.info('sync retry failed', { error: errMsg(err) }))
      }, again.delayMs)
    }
  }
}
