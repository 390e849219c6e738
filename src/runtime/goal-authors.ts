/**
 * Whose goals the role works on (GoalSource): anyone in the room, or only
 * goals written by this browser's tabs, which this peer always counts among.
 */
import type { GoalSource } from './types'

/**
 * How often a role that works only on this browser's tabs' goals looks again
 * at which tabs those are: a tab opened since is heard of within this. The
 * role is level-triggered, so a goal written by that tab meanwhile is only
 * delayed, not lost; reading the slots is one small IndexedDB read.
 */
export const LOCAL_AUTHORS_REFRESH_MS = 5_000

/** the authors the core starts with (null: anyone), before the other tabs are listed */
export function authorsAtStart(source: GoalSource, peerId: string): string[] | null {
  return source === 'anyone' ? null : [peerId]
}

export interface GoalAuthorsInit {
  source: GoalSource
  peerId: string
  /** PeerIds of this browser's other tabs (default: none) */
  localAuthors?: () => Promise<string[]>
  /** tells the core whose goals it works on (null: anyone) */
  setAuthors: (authors: string[] | null) => void
  log: (message: string) => void
}

/** Tells the core whose goals to work on now, and again as tabs open. */
export class GoalAuthors {
  private source: GoalSource
  private readonly localAuthors: () => Promise<string[]>
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(private readonly init: GoalAuthorsInit) {
    this.source = init.source
    this.localAuthors = init.localAuthors ?? (async () => [])
    this.follow()
  }

  /** whose goals from now on (work in flight finishes) */
  set(source: GoalSource): void {
    this.source = source
    this.follow()
  }

  /**
   * Tells the core now; for "this browser's tabs", whose list changes as tabs
   * open, again every LOCAL_AUTHORS_REFRESH_MS. The timer runs only then:
   * each turn wakes the page, which an idle Firefox tab paid every 5 s.
   */
  private follow(): void {
    void this.refresh()
    clearInterval(this.timer)
    this.timer =
      this.source === 'this-browser'
        ? setInterval(() => void this.refresh(), LOCAL_AUTHORS_REFRESH_MS)
        : undefined
  }

  stop(): void {
    clearInterval(this.timer)
  }

  private async refresh(): Promise<void> {
    const { peerId, setAuthors, log } = this.init
    if (this.source === 'anyone') return setAuthors(null)
    let authors = [peerId]
    try {
      authors = [...new Set([peerId, ...(await this.localAuthors())])].sort()
    } catch (err) {
      log(`could not list this browser's tabs: ${(err as Error).message}`)
    }
    if (this.source === 'this-browser') setAuthors(authors)
  }
}
