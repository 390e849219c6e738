/**
 * Counts protocol violations per peer and bans repeat offenders for a while.
 * The node hangs up on a banned peer and its connection gater refuses it.
 */
import { BAN_DURATION_MS, STRIKE_DECAY_MS, STRIKES_BEFORE_BAN } from './constants'

export interface StrikesInit {
  /** strikes that trigger a ban; default STRIKES_BEFORE_BAN */
  threshold?: number
  /** ban length in ms; default BAN_DURATION_MS */
  banMs?: number
  /** one strike forgiven per this many ms; default STRIKE_DECAY_MS */
  decayMs?: number
  /** clock; default Date.now */
  now?: () => number
  /** called once when a peer gets banned */
  onBan?: (peerId: string, reason: string) => void
}

export class Strikes {
  private readonly counts = new Map<string, { count: number; last: number }>()
  private readonly banned = new Map<string, number>()
  private readonly threshold: number
  private readonly banMs: number
  private readonly decayMs: number
  private readonly now: () => number

  constructor(private readonly init: StrikesInit = {}) {
    this.threshold = init.threshold ?? STRIKES_BEFORE_BAN
    this.banMs = init.banMs ?? BAN_DURATION_MS
    this.decayMs = init.decayMs ?? STRIKE_DECAY_MS
    this.now = init.now ?? Date.now
  }

  /** Records a violation; returns true when this strike banned the peer. */
  strike(peerId: string, reason: string, weight = 1): boolean {
    const now = this.now()
    const prev = this.counts.get(peerId)
    const decayed = prev
      ? Math.max(0, prev.count - Math.floor((now - prev.last) / this.decayMs))
      : 0
    const count = decayed + weight
    this.counts.set(peerId, { count, last: now })
    if (count >= this.threshold && !this.isBanned(peerId)) {
      this.banned.set(peerId, now + this.banMs)
      this.counts.delete(peerId)
      this.init.onBan?.(peerId, reason)
      return true
    }
    return false
  }

  /** Strikes `peerId` holds now (after decay); 0 for a peer never struck or just banned. */
  count(peerId: string): number {
    const prev = this.counts.get(peerId)
    if (!prev) return 0
    return Math.max(0, prev.count - Math.floor((this.now() - prev.last) / this.decayMs))
  }

  isBanned(peerId: string): boolean {
    const until = this.banned.get(peerId)
    if (until === undefined) return false
    if (until <= this.now()) {
      this.banned.delete(peerId)
      return false
    }
    return true
  }
}
