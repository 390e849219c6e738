/**
 * Is this tab returning: was its previous page online in the room under
 * the same PeerId moments ago (a reload)? Its peers may then still hold
 * links to that page, gone at this end, and not dial it (dialer.ts,
 * relink.ts). A page marks the time as it goes (pagehide); sessionStorage
 * keeps the mark across a reload of this tab, and shows it to no other tab.
 */
import { RETURNING_WITHIN_MS } from './constants'

const markOf = (room: string, peerId: string) => `murmuration:online:${room}:${peerId}`

export interface ReturningTab {
  /** the previous page of this tab was online in `room` as `peerId` within RETURNING_WITHIN_MS */
  returning: boolean
  /** stop marking (the node stopped: its links closed cleanly) */
  stop(): void
}

export function returningTab(room: string, peerId: string, now = Date.now()): ReturningTab {
  const mark = markOf(room, peerId)
  let returning = false
  try {
    const at = Number(sessionStorage.getItem(mark))
    returning = at > 0 && now - at >= 0 && now - at < RETURNING_WITHIN_MS
    sessionStorage.removeItem(mark)
  } catch {
    // storage off (a sandboxed frame, privacy settings): a returning tab only links more slowly
  }
  const onPageHide = () => {
    try {
      sessionStorage.setItem(mark, String(Date.now()))
    } catch {
      // as above
    }
  }
  addEventListener('pagehide', onPageHide)
  return { returning, stop: () => removeEventListener('pagehide', onPageHide) }
}
