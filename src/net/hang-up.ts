/**
 * Ending a link on purpose. libp2p's `Connection.close()` closes each stream
 * gracefully (it waits for queued frames to flush) and gives up after its
 * close timeout (1 s by default); a close that gives up leaves the muxer half
 * closed but the connection itself open: listed as a link, refusing new
 * streams, until a ping fails. On a loaded machine a busy link's flush takes
 * longer than that. So a close that fails becomes an abort.
 */
import type { Connection } from '@libp2p/interface'
import { errMsg, type NetLogger } from './log'

type Link = Pick<Connection, 'close' | 'abort' | 'remotePeer'>

/** Close `conn` gracefully, and abort it if the close fails or times out. */
export function closeLink(conn: Link, logger?: NetLogger): void {
  conn.close().catch((err: unknown) => {
    logger?.debug('link did not close in time: aborted', {
      peer: conn.remotePeer.toString(),
      error: errMsg(err),
    })
    conn.abort(err instanceof Error ? err : new Error(errMsg(err)))
  })
}

/**
 * Drop a banned peer's link at once: it is owed no flush, and what it has
 * queued is what we refuse.
 */
export function abortLink(conn: Link, reason: string): void {
  conn.abort(new Error(reason))
}
