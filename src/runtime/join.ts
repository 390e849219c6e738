/**
 * When a peer that has not synced with anyone yet starts work anyway. A peer
 * joins (starts its warm-up, see PeerConfig.joinFirst) once its first
 * anti-entropy session has ended; these say how long it waits for one, and
 * Join (below) is the runtime's wait.
 */
import type { SwarmNode } from '../net/types'
import type { PlanStore } from './store'

/**
 * A peer with no reason to expect company (the first tab of a room) starts
 * after this long: a tab takes about 2 s to link to a peer on a LAN, so this
 * is well past that, and short enough not to keep a lone peer idle for long.
 */
export const JOIN_FALLBACK_MS = 6_000
/**
 * A peer that has reason to expect company (the relay lists other members
 * of the room, or its stored plan holds records others wrote: a reloaded
 * tab) waits up to this long. A tab reloaded on a loaded machine can take
 * more than 6 s to relink, and one that starts before it has synced redoes
 * leaves the swarm finished meanwhile. Past this, it works with what it
 * has, like a peer cut off from the rest.
 */
export const JOIN_EXPECTING_PEERS_MAX_MS = 60_000
/** How often a peer still waiting looks again (the relay may list members meanwhile). */
export const JOIN_RECHECK_MS = 1_000
/**
 * Once its first session has ended, a peer syncs once more with every peer
 * it is linked to by then, and joins when that round ends or after this
 * long. A peer whose link is from before a rekey meets, on its old epoch,
 * both members' forwarding nodes (which hand it the rekey) and maybe a
 * removed member: the rekey must be in before it takes any LLM work, or it
 * would spend its key on the removed member's goals until it arrives. A
 * session with a linked peer takes well under a second; a stalled one is
 * not worth keeping a peer idle for.
 */
export const JOIN_ROUND_MAX_MS = 5_000

/** Does a peer that has not synced yet, `sinceStartMs` after it started, start work now? */
export function joinsWithoutSync(sinceStartMs: number, expectsPeers: boolean): boolean {
  return sinceStartMs >= (expectsPeers ? JOIN_EXPECTING_PEERS_MAX_MS : JOIN_FALLBACK_MS)
}

export interface JoinInit {
  /** the current epoch's node; null before the first connect */
  node: () => SwarmNode | null
  /** this peer's records so far (stored records others wrote: it expects company) */
  store: Pick<PlanStore, 'records'>
  peerId: string
  /** once: the role starts its warm-up, and this peer's member admits its owner */
  onJoined: () => void
  now: () => number
  log: (message: string) => void
}

/**
 * The role starts warming up once it has caught up with the swarm: after its
 * first session, one round with every peer linked by then. No sync yet: it
 * starts alone after a while, longer if this peer has reason to expect
 * company. The wait starts when this is made.
 */
export class Join {
  private joined = false
  private round = false
  private readonly started: number
  private othersStored: boolean | undefined // looked up once: the store only grows
  private fallback: ReturnType<typeof setTimeout>

  constructor(private readonly init: JoinInit) {
    this.started = init.now()
    this.fallback = setTimeout(() => this.unlessExpected(), JOIN_FALLBACK_MS)
  }

  /** an anti-entropy session of this peer's ended without error */
  sessionEnded(): void {
    const node = this.init.node()
    if (this.joined || this.round || !node) return
    this.round = true
    let timer: ReturnType<typeof setTimeout> | undefined
    void Promise.race([
      node
        .syncNow()
        .catch((err: Error) => this.init.log(`the join's sync round failed: ${err.message}`)),
      new Promise((resolve) => (timer = setTimeout(resolve, JOIN_ROUND_MAX_MS))),
    ]).then(() => {
      clearTimeout(timer)
      this.join()
    })
  }

  stop(): void {
    clearTimeout(this.fallback)
  }

  private join(): void {
    if (this.joined) return
    this.joined = true
    clearTimeout(this.fallback)
    this.init.onJoined()
  }

  private expectsPeers(): boolean {
    this.othersStored ??= this.init.store.records().some((r) => r.from !== this.init.peerId)
    return this.othersStored || (this.init.node()?.connections().known ?? 0) > 0
  }

  private unlessExpected(): void {
    if (this.joined) return
    const expected = this.expectsPeers()
    if (!joinsWithoutSync(this.init.now() - this.started, expected)) {
      this.fallback = setTimeout(() => this.unlessExpected(), JOIN_RECHECK_MS)
      return
    }
    if (expected) this.init.log('no sync with any peer yet: working with the plan this peer has')
    this.join()
  }
}
