/**
 * Is this tab returning: was a page with its PeerId online in the room
 * moments ago (a reload, a tab closed and reopened)? Its peers may then
 * still hold links to that page, gone at this end, and not dial it
 * (dialer.ts, relink.ts). A page leaves a mark with the time as it goes
 * (pagehide), under its room and PeerId; a PeerId belongs to one tab at a
 * time (identity.browser.ts), so no other tab reads the mark as its own.
 */
import { RETURNING_WITHIN_MS } from './constants'

const PREFIX = 'murmuration:online:'

export interface ReturningTab {
  /** a page with this PeerId left `room` within RETURNING_WITHIN_MS */
  returning: boolean
  /** stop marking (the node stopped: its links closed cleanly) */
  stop(): void
}

export interface ReturningTabInit {
  /** default localStorage */
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>
  /** where pagehide fires; default the page (globalThis) */
  page?: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>
  /** default Date.now */
  now?: () => number
}

export function returningTab(
  room: string,
  peerId: string,
  init: ReturningTabInit = {},
): ReturningTab {
  const now = init.now ?? Date.now
  const page = init.page ?? globalThis
  const storage = () => init.storage ?? localStorage
  const mark = `${PREFIX}${room}:${peerId}`
  let returning = false
  try {
    returning = fresh(storage().getItem(mark), now())
    sweep(storage(), now())
  } catch {
    // storage off (a sandboxed frame, privacy settings): a returning tab only links more slowly
  }
  const onPageHide = () => {
    try {
      storage().setItem(mark, String(now()))
    } catch {
      // as above
    }
  }
  page.addEventListener('pagehide', onPageHide)
  return { returning, stop: () => page.removeEventListener('pagehide', onPageHide) }
}

/** Was a mark left within RETURNING_WITHIN_MS before `now`? */
function fresh(mark: string | null, now: number): boolean {
  const at = Number(mark)
  return at > 0 && now - at >= 0 && now - at < RETURNING_WITHIN_MS
}

/** Removes every mark too old to matter: a closed tab's is read by no one. */
function sweep(storage: NonNullable<ReturningTabInit['storage']>, now: number): void {
  const keys: string[] = []
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i)
    if (key?.startsWith(PREFIX) === true) keys.push(key)
  }
  for (const key of keys) if (!fresh(storage.getItem(key), now)) storage.removeItem(key)
}
