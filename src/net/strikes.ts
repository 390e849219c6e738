/**
 * Counts protocol violations per offender and bans repeat offenders for a
 * while. The node hangs up on a banned peer and its connection gater
 * refuses it.
 *
 * An offender is the member a PeerId acts for when that is known (`memberOf`,
 * supplied by the runtime from its room's membership), else the PeerId: a
 * member's tabs and agents add up their strikes, and a ban of one of its
 * PeerIds refuses every PeerId bound to it, now or once its bind arrives,
 * so minting PeerIds does not escape a ban. A PeerId banned before its bind
 * was known bans its member as soon as the bind is (the member's key vouched
 * for it). Pure bookkeeping: the clock and the lookup are injected.
 */
import { BAN_DURATION_MS, STRIKE_DECAY_MS, STRIKES_BEFORE_BAN } from './constants'
import type { MemberLookup } from './types'

export interface StrikesInit {
  /** strikes that trigger a ban; default STRIKES_BEFORE_BAN */
  threshold?: number
  /** ban length in ms; default BAN_DURATION_MS */
  banMs?: number
  /** one strike forgiven per this many ms; default STRIKE_DECAY_MS */
  decayMs?: number
  /** clock; default Date.now */
  now?: () => number
  /** the member a PeerId acts for; default none (every PeerId its own offender) */
  memberOf?: MemberLookup
  /** called once when a peer gets banned (with its member, if known) */
  onBan?: (peerId: string, reason: string, member: string | undefined) => void
}

/** Keys of the two kinds of offender, apart so a PeerId never names a member. */
const peerKey = (peerId: string) => `peer:${peerId}`
const memberKey = (member: string) => `member:${member}`

export class Strikes {
  private readonly counts = new Map<string, { count: number; last: number }>()
  /** offender key → when its ban ends */
  private readonly banned = new Map<string, number>()
  private readonly threshold: number
  private readonly banMs: number
  private readonly decayMs: number
  private readonly now: () => number
  private readonly memberOf: MemberLookup

  constructor(private readonly init: StrikesInit = {}) {
    this.threshold = init.threshold ?? STRIKES_BEFORE_BAN
    this.banMs = init.banMs ?? BAN_DURATION_MS
    this.decayMs = init.decayMs ?? STRIKE_DECAY_MS
    this.now = init.now ?? Date.now
    this.memberOf = init.memberOf ?? (() => undefined)
  }

  /** The offender `peerId` is: its member's key if known, else its own. */
  private keyOf(peerId: string): { key: string; member: string | undefined } {
    const member = this.memberOf(peerId)
    return { key: member === undefined ? peerKey(peerId) : memberKey(member), member }
  }

  private held(key: string, now: number): number {
    const prev = this.counts.get(key)
    if (!prev) return 0
    return Math.max(0, prev.count - Math.floor((now - prev.last) / this.decayMs))
  }

  /** Records a violation; returns true when this strike banned the peer (and its member). */
  strike(peerId: string, reason: string, weight = 1): boolean {
    const now = this.now()
    const { key, member } = this.keyOf(peerId)
    // strikes the PeerId took before its bind was known still count
    const own = key === peerKey(peerId) ? 0 : this.held(peerKey(peerId), now)
    const count = this.held(key, now) + own + weight
    this.counts.set(key, { count, last: now })
    if (own > 0) this.counts.delete(peerKey(peerId))
    if (count >= this.threshold && !this.isBanned(peerId)) {
      const until = now + this.banMs
      this.banned.set(peerKey(peerId), until)
      if (member !== undefined) this.banned.set(memberKey(member), until)
      this.counts.delete(key)
      this.init.onBan?.(peerId, reason, member)
      return true
    }
    return false
  }

  /** Strikes `peerId`'s offender holds now (after decay); 0 if never struck or just banned. */
  count(peerId: string): number {
    const now = this.now()
    const { key } = this.keyOf(peerId)
    const own = key === peerKey(peerId) ? 0 : this.held(peerKey(peerId), now)
    return this.held(key, now) + own
  }

  /** Whether `peerId` is refused now: it, or the member it acts for, is banned. */
  isBanned(peerId: string): boolean {
    const now = this.now()
    const mine = this.until(peerKey(peerId), now)
    const member = this.memberOf(peerId)
    if (member === undefined) return mine !== undefined
    this.reachMember(member, now)
    return mine !== undefined || this.until(memberKey(member), now) !== undefined
  }

  /**
   * A PeerId banned while its bind was unknown, and now known to act for
   * `member`, bans the member till its own ban ends. Bans are few (each took
   * STRIKES_BEFORE_BAN violations), so scanning them costs next to nothing.
   */
  private reachMember(member: string, now: number): void {
    const key = memberKey(member)
    for (const [banned, until] of this.banned) {
      if (!banned.startsWith('peer:') || until <= now) continue
      if (this.memberOf(banned.slice('peer:'.length)) !== member) continue
      if ((this.banned.get(key) ?? 0) < until) this.banned.set(key, until)
    }
  }

  /** When `key`'s ban ends, or undefined if it is not banned (an ended ban is forgotten). */
  private until(key: string, now: number): number | undefined {
    const until = this.banned.get(key)
    if (until === undefined) return undefined
    if (until <= now) {
      this.banned.delete(key)
      return undefined
    }
    return until
  }
}
