import { describe, expect, it } from 'vitest'
import { SYNC_CHECK_ROUNDS, SYNC_CHECK_TIMEOUT_MS } from '../protocol/rules'
import { askedSince, createSyncRounds, requestSync, syncEnded, syncedSince } from './neighbours'
import type { PeerState } from './peer'
import { emptyEffects } from './types'

const peerWithRounds = () => ({ syncs: createSyncRounds() }) as PeerState

/** Ask at `now`; did the peer ask the runtime for a round? */
function ask(peer: PeerState, now: number): boolean {
  const fx = emptyEffects()
  requestSync(peer, fx, now)
  return fx.sync
}

describe('check rounds', () => {
  it('a second claim a moment later gets a round of its own, not the end of the first', () => {
    const peer = peerWithRounds()
    expect(ask(peer, 1_000)).toBe(true)
    expect(ask(peer, 1_000)).toBe(false) // the same instant: that round serves
    expect(ask(peer, 1_300)).toBe(true)
    expect(askedSince(peer, 1_300)).toBe(true)
    syncEnded(peer, emptyEffects(), 2_500, true)
    // one round ended, and the runtime does not say which: only the older ask is served
    expect(syncedSince(peer, 1_000)).toBe(true)
    expect(syncedSince(peer, 1_300)).toBe(false)
    syncEnded(peer, emptyEffects(), 2_600, true)
    expect(syncedSince(peer, 1_300)).toBe(true)
  })

  it(`keeps at most ${SYNC_CHECK_ROUNDS} in flight, and asks again once one ends`, () => {
    const peer = peerWithRounds()
    for (let i = 0; i < SYNC_CHECK_ROUNDS; i++) expect(ask(peer, 100 * i)).toBe(true)
    expect(ask(peer, 1_000)).toBe(false)
    const fx = emptyEffects()
    syncEnded(peer, fx, 1_500, true)
    expect(fx.sync).toBe(true)
    expect(askedSince(peer, 1_000)).toBe(true)
  })

  it('gives up on a round that never ends', () => {
    const peer = peerWithRounds()
    for (let i = 0; i < SYNC_CHECK_ROUNDS; i++) ask(peer, i)
    expect(ask(peer, SYNC_CHECK_TIMEOUT_MS + SYNC_CHECK_ROUNDS)).toBe(true)
  })
})
