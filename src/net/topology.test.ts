import { describe, expect, it } from 'vitest'
import { BIG_ROOM_LINKS, BIG_ROOM_PEERS, DIRECT_LINKS } from './constants'
import { linkDegree, linkTargets } from './topology'

const room = (n: number) => Array.from({ length: n }, (_, i) => `12D3KooWpeer${i}`)

function components(peers: string[], degree: number): number {
  const seen = new Set<string>()
  let count = 0
  for (const start of peers) {
    if (seen.has(start)) continue
    count++
    const stack = [start]
    seen.add(start)
    while (stack.length) {
      for (const next of linkTargets(stack.pop()!, peers, degree)) {
        if (!seen.has(next)) {
          seen.add(next)
          stack.push(next)
        }
      }
    }
  }
  return count
}

describe('linkTargets', () => {
  it('is a full mesh while the room has at most degree + 1 peers', () => {
    const peers = room(11)
    for (const p of peers) expect(linkTargets(p, peers, 10).size).toBe(10)
  })

  it('is symmetric, bounded and connected in big rooms', () => {
    for (const n of [12, 17, 32, 64, 200]) {
      const peers = room(n)
      for (const a of peers) {
        const mine = linkTargets(a, peers, 10)
        expect(mine.size).toBeLessThanOrEqual(10)
        expect(mine.has(a)).toBe(false)
        for (const b of mine) expect(linkTargets(b, peers, 10).has(a)).toBe(true)
      }
      expect(components(peers, 10)).toBe(1)
    }
  })

  it('does not depend on the order the room is listed in', () => {
    const peers = room(40)
    const reversed = [...peers].reverse()
    for (const p of peers) expect(linkTargets(p, reversed, 8)).toEqual(linkTargets(p, peers, 8))
  })

  it('links 10 neighbours up to 17 peers, 6 in bigger rooms', () => {
    expect(linkDegree(11)).toBe(DIRECT_LINKS)
    expect(linkDegree(BIG_ROOM_PEERS)).toBe(DIRECT_LINKS)
    expect(linkDegree(BIG_ROOM_PEERS + 1)).toBe(BIG_ROOM_LINKS)
    expect(linkDegree(64)).toBe(BIG_ROOM_LINKS)
    const peers = room(32)
    for (const p of peers) expect(linkTargets(p, peers, linkDegree(32)).size).toBe(BIG_ROOM_LINKS)
  })
})
