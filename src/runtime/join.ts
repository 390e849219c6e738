/**
 * When a peer that has not synced with anyone yet starts work anyway. A peer
 * joins (starts its warm-up, see PeerConfig.joinFirst) once its first
 * anti-entropy session has ended; these say how long it waits for one.
 */

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
