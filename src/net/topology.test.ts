import { describe, expect, it } from 'vitest'
import {
  linkGraph,
  linkShape,
  linkTargets,
  quietAfterMs,
  quietLinkShape,
  type LinkShape,
} from './topology'
import {
  BIG_ROOM_PEERS,
  BIG_ROOM_RING,
  BIG_ROOM_SHORTCUTS,
  DIRECT_LINKS,
  QUIET_LINKS_AFTER_MS,
} from './constants'
import { OVER_ROOM_AFTER_MS } from '../protocol/rules'

const room = (n: number) => Array.from({ length: n }, (_, i) => `12D3KooWpeer${i}`)

function components(peers: string[], shape: LinkShape): number {
  const seen = new Set<string>()
  let count = 0
  for (const start of peers) {
    if (seen.has(start)) continue
    count++
    const stack = [start]
    seen.add(start)
    while (stack.length) {
      for (const next of linkTargets(stack.pop()!, peers, shape)) {
        if (!seen.has(next)) {
          seen.add(next)
          stack.push(next)
        }
      }
    }
  }
  return count
}

/** Mean and largest number of hops between two peers of the room. */
function hops(peers: string[]): { mean: number; max: number } {
  const graph = linkGraph(peers)
  let total = 0
  let max = 0
  for (const start of peers) {
    const dist = new Map([[start, 0]])
    const queue = [start]
    for (let head = 0; head < queue.length; head++) {
      const at = queue[head]!
      for (const next of graph.get(at)!) {
        if (dist.has(next)) continue
        dist.set(next, dist.get(at)! + 1)
        queue.push(next)
      }
    }
    for (const d of dist.values()) total += d
    max = Math.max(max, ...dist.values())
  }
  return { mean: total / (peers.length * (peers.length - 1)), max }
}

const ring10: LinkShape = { ring: DIRECT_LINKS / 2, shortcuts: 0 }

describe('linkTargets', () => {
  it('is a full mesh while the room has at most DIRECT_LINKS + 1 peers', () => {
    for (const n of [2, 3, 6, 10, 11]) {
      const peers = room(n)
      for (const p of peers) expect(linkTargets(p, peers).size).toBe(n - 1)
    }
  })

  it('is symmetric and connected, in rooms of every size', () => {
    for (const n of [12, 17, 18, 32, 64, 200]) {
      const peers = room(n)
      for (const a of peers) {
        const mine = linkTargets(a, peers)
        expect(mine.has(a)).toBe(false)
        for (const b of mine) expect(linkTargets(b, peers).has(a)).toBe(true)
      }
      expect(components(peers, linkShape(n))).toBe(1)
    }
  })

  it('keeps a quiet room connected on two links a peer (a few more in a big room), each wanted by both ends', () => {
    for (const n of [2, 3, 4, 6, 11, 17, 18, 64]) {
      const peers = room(n)
      const shape = quietLinkShape(n)
      let most = 0
      for (const a of peers) {
        const mine = linkTargets(a, peers, shape)
        most = Math.max(most, mine.size)
        for (const b of mine) expect(linkTargets(b, peers, shape).has(a)).toBe(true)
      }
      expect(components(peers, shape)).toBe(1)
      expect(most).toBeLessThanOrEqual(n > BIG_ROOM_PEERS ? 8 : Math.min(2, n - 1))
    }
  })

  it('does not depend on the order the room is listed in', () => {
    const peers = room(40)
    const reversed = [...peers].reverse()
    for (const p of peers) expect(linkTargets(p, reversed)).toEqual(linkTargets(p, peers))
  })

  it('links 10 ring neighbours up to BIG_ROOM_PEERS, then a ring with shortcuts', () => {
    expect(linkShape(11)).toEqual(ring10)
    expect(linkShape(BIG_ROOM_PEERS)).toEqual(ring10)
    const big = { ring: BIG_ROOM_RING, shortcuts: BIG_ROOM_SHORTCUTS }
    expect(linkShape(BIG_ROOM_PEERS + 1)).toEqual(big)
    for (const p of room(17)) expect(linkTargets(p, room(17)).size).toBe(DIRECT_LINKS)
  })

  it('keeps big rooms a small world on about six links a peer', () => {
    for (const [n, mean, max] of [
      [32, 2.4, 5],
      [64, 2.9, 6],
      [128, 3.3, 7],
    ] as const) {
      const peers = room(n)
      const sizes = peers.map((p) => linkTargets(p, peers).size)
      const average = sizes.reduce((a, b) => a + b, 0) / n
      expect(average).toBeGreaterThan(5)
      expect(average).toBeLessThan(7)
      expect(Math.max(...sizes)).toBeLessThanOrEqual(16)
      const h = hops(peers)
      // a ring of 6 neighbours alone: mean 3.1 hops at 32, 5.8 at 64, 11.1 at 128
      expect(h.mean).toBeLessThan(mean)
      expect(h.max).toBeLessThanOrEqual(max)
    }
  })

  it('moves few links in the room when a peer joins', () => {
    const peers = room(64)
    const before = linkGraph(peers)
    const after = linkGraph([...peers, '12D3KooWnewcomer'])
    let moved = 0
    for (const p of peers) {
      const was = before.get(p)!
      const is = new Set([...after.get(p)!].filter((q) => q !== '12D3KooWnewcomer'))
      for (const q of was) if (!is.has(q)) moved++
      for (const q of is) if (!was.has(q)) moved++
    }
    // each link counted at both ends; the ring alone moves about 3 links a join
    expect(moved / 2).toBeLessThanOrEqual(8)
  })
})

describe('when a room is quiet (quietAfterMs)', () => {
  it('a minute after the last activity while a goal is open, 15 s once the plan is over', () => {
    expect(quietAfterMs(false)).toBe(QUIET_LINKS_AFTER_MS)
    expect(quietAfterMs(true)).toBe(OVER_ROOM_AFTER_MS)
    expect(OVER_ROOM_AFTER_MS).toBeLessThan(QUIET_LINKS_AFTER_MS)
    // a shorter quiet time (a test's) is never made longer
    expect(quietAfterMs(true, 3_000)).toBe(3_000)
    expect(quietAfterMs(false, 3_000)).toBe(3_000)
  })
})
