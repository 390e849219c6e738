import { afterEach, describe, expect, it, vi } from 'vitest'
import type { SwarmNode, SyncReport } from '../net/types'
import type { PlanRecord } from '../protocol/records'
import {
  Join,
  JOIN_EXPECTING_PEERS_MAX_MS,
  JOIN_FALLBACK_MS,
  JOIN_RECHECK_MS,
  JOIN_ROUND_MAX_MS,
  joinsWithoutSync,
} from './join'

describe('joining without a sync', () => {
  it('a peer alone in its room starts after the short fallback', () => {
    expect(joinsWithoutSync(JOIN_FALLBACK_MS - 1, false)).toBe(false)
    expect(joinsWithoutSync(JOIN_FALLBACK_MS, false)).toBe(true)
  })

  it('a peer that expects company (a reloaded tab) keeps waiting for its sync, but not for ever', () => {
    expect(joinsWithoutSync(JOIN_FALLBACK_MS, true)).toBe(false)
    expect(joinsWithoutSync(JOIN_EXPECTING_PEERS_MAX_MS - 1, true)).toBe(false)
    expect(joinsWithoutSync(JOIN_EXPECTING_PEERS_MAX_MS, true)).toBe(true)
  })
})

describe('Join: when the runtime tells its role to start', () => {
  afterEach(() => vi.useRealTimers())

  /** a node whose sync rounds the test settles; `known`: peers the relay lists */
  function fakeNode(known = 0) {
    const rounds: Array<() => void> = []
    const node = {
      syncNow: () => new Promise<SyncReport[]>((resolve) => rounds.push(() => resolve([]))),
      connections: () => ({ known }),
    } as unknown as SwarmNode
    return { node, rounds }
  }

  function start(node: SwarmNode | null, stored: Array<{ from: string }> = []) {
    vi.useFakeTimers()
    const joined: number[] = []
    const logged: string[] = []
    const join = new Join({
      node: () => node,
      store: { records: () => stored as PlanRecord[] },
      peerId: 'me',
      onJoined: () => joined.push(Date.now()),
      now: Date.now,
      log: (line) => logged.push(line),
    })
    return { join, joined, logged }
  }

  it('a peer alone starts after JOIN_FALLBACK_MS, once', () => {
    const { joined, logged } = start(fakeNode().node)
    vi.advanceTimersByTime(JOIN_FALLBACK_MS - 1)
    expect(joined).toHaveLength(0)
    vi.advanceTimersByTime(1)
    expect(joined).toHaveLength(1)
    vi.advanceTimersByTime(JOIN_EXPECTING_PEERS_MAX_MS)
    expect(joined).toHaveLength(1)
    expect(logged).toEqual([])
  })

  it("a peer with others' records stored waits up to JOIN_EXPECTING_PEERS_MAX_MS, and says so", () => {
    const { joined, logged } = start(fakeNode().node, [{ from: 'someone-else' }])
    vi.advanceTimersByTime(JOIN_EXPECTING_PEERS_MAX_MS - JOIN_RECHECK_MS)
    expect(joined).toHaveLength(0)
    vi.advanceTimersByTime(JOIN_RECHECK_MS)
    expect(joined).toHaveLength(1)
    expect(logged).toEqual(['no sync with any peer yet: working with the plan this peer has'])
  })

  it('a peer the relay lists others to waits too', () => {
    const { joined } = start(fakeNode(2).node)
    vi.advanceTimersByTime(JOIN_FALLBACK_MS * 2)
    expect(joined).toHaveLength(0)
  })

  it('after its first session it joins when one more round ends, and starts only one round', async () => {
    const { node, rounds } = fakeNode(1)
    const { join, joined } = start(node)
    join.sessionEnded()
    join.sessionEnded()
    expect(rounds).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(100)
    expect(joined).toHaveLength(0)
    rounds[0]!()
    await vi.advanceTimersByTimeAsync(0)
    expect(joined).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(JOIN_EXPECTING_PEERS_MAX_MS)
    expect(joined).toHaveLength(1)
  })

  it('a round that never ends holds the join JOIN_ROUND_MAX_MS at most', async () => {
    const { node } = fakeNode(1)
    const { join, joined } = start(node)
    join.sessionEnded()
    await vi.advanceTimersByTimeAsync(JOIN_ROUND_MAX_MS - 1)
    expect(joined).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(joined).toHaveLength(1)
  })

  it('a stopped join never starts the role', () => {
    const { join, joined } = start(null)
    join.stop()
    vi.advanceTimersByTime(JOIN_EXPECTING_PEERS_MAX_MS)
    expect(joined).toHaveLength(0)
  })
})
