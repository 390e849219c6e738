// Dialer's pruning of surplus direct links (closeSurplusLinks, run by tick()), against a fake libp2p.
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { Libp2p } from '@libp2p/interface'
import { multiaddr } from '@multiformats/multiaddr'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { DIRECT_LINKS, RELAYED_LINK_GRACE_MS } from './constants'
import { Dialer } from './dialer'
import { silentLogger } from './log'
import type { RelayInfo } from './relay-client'
import { linkTargets, quietLinkShape } from './topology'

const GRACE = 1_000
const T0 = 1_700_000_000_000

let ids: string[] = []
let relay: RelayInfo

beforeAll(async () => {
  const gen = async () => peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()
  ids = await Promise.all(Array.from({ length: 24 }, gen))
  const relayId = await gen()
  relay = { peerId: relayId, addr: multiaddr(`/ip4/127.0.0.1/tcp/4001/ws/p2p/${relayId}`) }
})
beforeEach(() => {
  vi.useFakeTimers()
  vi.setSystemTime(T0)
})
afterEach(() => vi.useRealTimers())

function setup(room: string[], self = ids[0]!, returning = false) {
  const conns: {
    remotePeer: { toString: () => string }
    status: 'open' | 'closed'
    limits: object | null
    direction: 'inbound' | 'outbound'
    timeline: { open: number }
    close: () => Promise<void>
  }[] = []
  const closed: string[] = []
  const dialed: string[] = []
  const link = (peer: string, relayed = false, direction: 'inbound' | 'outbound' = 'outbound') => {
    const conn = {
      remotePeer: { toString: () => peer },
      status: 'open' as 'open' | 'closed',
      limits: relayed ? { seconds: 120 } : null,
      direction,
      timeline: { open: Date.now() },
      close: async () => {
        conn.status = 'closed'
        conns.splice(conns.indexOf(conn), 1)
        closed.push(peer)
      },
    }
    conns.push(conn)
  }
  const libp2p = {
    peerId: { toString: () => self },
    addEventListener: () => {},
    removeEventListener: () => {},
    getConnections: () => [...conns],
    dial: (target: { toString: () => string }) => {
      dialed.push(target.toString().split('/').pop()!)
      return new Promise(() => {})
    },
  }
  const dialer = new Dialer({
    libp2p: libp2p as unknown as Libp2p,
    logger: silentLogger,
    signal: new AbortController().signal,
    isBanned: () => false,
    onChange: () => {},
    surplusGraceMs: GRACE,
    returning,
  })
  const neighbours = [...linkTargets(self, room)]
  const others = room.filter((id) => id !== self && !neighbours.includes(id))
  const tickAt = (t: number) => {
    vi.setSystemTime(T0 + t)
    dialer.tick()
  }
  return { self, dialer, link, closed, dialed, neighbours, others, tickAt }
}

describe('Dialer: surplus direct links', () => {
  it('closes links it does not want once the grace has passed, and only those', () => {
    const room = ids.slice(0, 20)
    const { dialer, link, closed, neighbours, others, tickAt } = setup(room)
    expect(neighbours.length).toBeLessThan(room.length - 3)
    for (const id of neighbours) link(id)
    const surplus = others.slice(0, 3)
    for (const id of surplus) link(id)
    dialer.setRoomPeers(relay, room)
    tickAt(0)
    expect(closed).toEqual([])
    tickAt(GRACE - 1)
    expect(closed).toEqual([])
    tickAt(GRACE)
    expect(closed.sort()).toEqual([...surplus].sort())
  })

  it('never closes the link to a relay (not a room peer), unwanted as it is', () => {
    const room = ids.slice(0, 20)
    const { dialer, link, closed, neighbours, others, tickAt } = setup(room)
    for (const id of neighbours) link(id)
    link(relay.peerId)
    link(others[0]!)
    dialer.setRoomPeers(relay, room)
    tickAt(0)
    tickAt(10 * GRACE)
    expect(closed).toEqual([others[0]])
  })

  it('keeps surplus links while fewer than all wanted links but two are up', () => {
    const room = ids.slice(0, 20)
    const { dialer, link, closed, dialed, neighbours, others, tickAt } = setup(room)
    const wanted = neighbours.length
    for (const id of neighbours.slice(0, wanted - 3)) link(id)
    link(others[0]!)
    dialer.setRoomPeers(relay, room)
    tickAt(GRACE)
    tickAt(10 * GRACE)
    expect(closed).toEqual([])
    // meanwhile it dials the missing neighbours (the fallback delay has passed), nobody else
    expect(new Set(dialed)).toEqual(new Set(neighbours.slice(wanted - 3)))
    // one more neighbour linked: all but two, enough to prune
    link(neighbours[wanted - 3]!)
    tickAt(10 * GRACE + 1)
    expect(closed).toEqual([others[0]])
  })

  it('never prunes in a full-mesh room', () => {
    const room = ids.slice(0, DIRECT_LINKS + 1)
    const { dialer, link, closed, tickAt } = setup(room)
    for (const id of room.slice(1)) link(id)
    // links to peers that are not in the room (anymore)
    link(ids[20]!)
    link(ids[21]!)
    dialer.setRoomPeers(relay, room)
    tickAt(GRACE)
    tickAt(10 * GRACE)
    expect(closed).toEqual([])
  })

  it('never prunes once the relay lists nobody (it went away), even in a big room', () => {
    const room = ids.slice(0, 20)
    const { dialer, link, closed, tickAt } = setup(room)
    for (const id of room.slice(1)) link(id)
    dialer.setRoomPeers(relay, room)
    dialer.setRoomPeers(relay, [])
    tickAt(GRACE)
    tickAt(10 * GRACE)
    expect(closed).toEqual([])
  })

  it('keeps a link that is wanted again before the grace, and restarts its timer', () => {
    const room = ids.slice(0, 20)
    const { self, dialer, link, closed, neighbours, tickAt } = setup(room)
    // without one of its peers, self wants one peer it did not want before
    const wantedWithout = (gone: string) => {
      const smaller = room.filter((id) => id !== gone)
      const back = [...linkTargets(self, smaller)].filter((id) => !neighbours.includes(id))
      return { smaller, back }
    }
    const gone = neighbours.find((id) => wantedWithout(id).back.length === 1)!
    const { smaller, back } = wantedWithout(gone)
    expect(back).toHaveLength(1)
    const x = back[0]!
    for (const id of neighbours) link(id)
    link(x)
    dialer.setRoomPeers(relay, room) // x unwanted since 0
    tickAt(GRACE - 1)
    dialer.setRoomPeers(relay, smaller) // x wanted again
    tickAt(GRACE)
    expect(closed).toEqual([])
    vi.setSystemTime(T0 + GRACE + 1)
    dialer.setRoomPeers(relay, room) // x unwanted again, since GRACE + 1
    tickAt(2 * GRACE)
    expect(closed).toEqual([])
    tickAt(2 * GRACE + 1)
    expect(closed).toEqual([x])
  })

  it('never closes relayed links', () => {
    const room = ids.slice(0, 20)
    const { dialer, link, closed, neighbours, others, tickAt } = setup(room)
    for (const id of neighbours) link(id)
    // relayed links only to peers we have no direct link to (else they are spent, and closed)
    link(others[0]!, true)
    link(others[1]!, true)
    link(others[2]!) // a direct surplus link: shows the pruning ran
    dialer.setRoomPeers(relay, room)
    tickAt(GRACE)
    tickAt(10 * GRACE)
    expect(closed).toEqual([others[2]])
  })
})

describe('Dialer: a quiet room', () => {
  /** a room of 6, self linked to all: the links it dialled and the ones dialled to it */
  function meshed() {
    const room = ids.slice(0, 6)
    const s = setup(room)
    const ring = [...linkTargets(s.self, room, quietLinkShape(room.length))]
    const off = room.filter((id) => id !== s.self && !ring.includes(id))
    expect(ring).toHaveLength(2)
    expect(off).toHaveLength(3)
    // self dialled the ring and two of the others; the third dialled self
    for (const id of ring) s.link(id)
    s.link(off[0]!)
    s.link(off[1]!)
    s.link(off[2]!, false, 'inbound')
    s.dialer.setRoomPeers(relay, room)
    return { ...s, room, ring, off }
  }

  it('tells its caller when a room list names a peer new to it (a newcomer wakes a quiet room)', () => {
    const { dialer } = setup(ids.slice(0, 6))
    expect(dialer.setRoomPeers(relay, ids.slice(0, 5))).toBe(true)
    expect(dialer.setRoomPeers(relay, ids.slice(0, 5))).toBe(false)
    expect(dialer.setRoomPeers(relay, ids.slice(0, 4))).toBe(false)
    expect(dialer.setRoomPeers(relay, ids.slice(0, 6))).toBe(true)
  })

  it('keeps a full mesh while the room is awake', () => {
    const { closed, dialed, tickAt } = meshed()
    tickAt(GRACE)
    tickAt(100 * GRACE)
    expect(closed).toEqual([])
    expect(dialed).toEqual([])
  })

  it('closes the off-ring links it dialled once quiet for the grace, and keeps the others', () => {
    const { dialer, closed, off, tickAt } = meshed()
    dialer.setQuiet(true)
    tickAt(GRACE - 1)
    expect(closed).toEqual([])
    tickAt(GRACE)
    // the link the other end dialled is theirs to close when they are quiet too
    expect(closed.sort()).toEqual([off[0], off[1]].sort())
  })

  it('thins nothing while a ring neighbour is not linked', () => {
    const room = ids.slice(0, 6)
    const { self, dialer, link, closed, tickAt } = setup(room)
    const ring = [...linkTargets(self, room, quietLinkShape(room.length))]
    for (const id of room.slice(1).filter((id) => id !== ring[0])) link(id)
    dialer.setRoomPeers(relay, room)
    dialer.setQuiet(true)
    tickAt(GRACE)
    tickAt(10 * GRACE)
    expect(closed).toEqual([])
  })

  it('links to every neighbour again when the room wakes: the lower end at once, the higher after its fallback', () => {
    const { self, dialer, closed, dialed, off, tickAt } = meshed()
    dialer.setQuiet(true)
    tickAt(GRACE)
    tickAt(2 * GRACE)
    expect(closed).toHaveLength(2)
    expect(dialed).toEqual([])
    dialer.setQuiet(false)
    const gone = [off[0]!, off[1]!]
    expect(dialed.sort()).toEqual(gone.filter((id) => self < id).sort())
    tickAt(2 * GRACE + 8_000)
    expect(dialed.sort()).toEqual(gone.sort())
  })
})

describe('Dialer: whose turn it is to dial', () => {
  /** self is the higher PeerId of a pair: the lower one dials first */
  function pair(returning: boolean) {
    const [lower, higher] = ids.slice(0, 2).sort() as [string, string]
    const s = setup([lower, higher], higher, returning)
    /** self dials the lower peer at `ms` after it saw it, not a moment before */
    const dialsAt = (ms: number) => {
      s.tickAt(ms - 1)
      expect(s.dialed).toEqual([])
      s.tickAt(ms)
      expect(s.dialed).toEqual([lower])
    }
    return { lower, dialsAt, ...s }
  }

  it('the lower peer dials at once', () => {
    const [lower, higher] = ids.slice(0, 2).sort() as [string, string]
    const { dialer, dialed } = setup([lower, higher], lower)
    dialer.setRoomPeers(relay, [higher])
    expect(dialed).toEqual([higher])
  })

  it('the higher peer dials 8 s after it saw the lower one', () => {
    const { lower, dialer, dialsAt } = pair(false)
    dialer.setRoomPeers(relay, [lower])
    dialsAt(8_000)
  })

  it('a returning peer dials after 2 s when nothing from the lower one is under way', () => {
    const { lower, dialer, dialsAt } = pair(true)
    dialer.setRoomPeers(relay, [lower])
    dialsAt(2_000)
  })

  it('but waits 8 s while a link from the lower one (the relayed signalling of its dial) stands', () => {
    const { lower, dialer, link, dialsAt } = pair(true)
    link(lower, true)
    dialer.setRoomPeers(relay, [lower])
    dialsAt(8_000)
  })
})

describe('Dialer: relayed links', () => {
  const room = () => ids.slice(0, 2)

  it('closes a relayed link once a direct link opened after it has stood the grace', () => {
    const { dialer, link, closed, tickAt } = setup(room())
    const peer = ids[1]!
    link(peer, true) // the signalling of a dial
    vi.setSystemTime(T0 + 1_000)
    link(peer) // its outcome
    dialer.setRoomPeers(relay, room())
    tickAt(1_000 + RELAYED_LINK_GRACE_MS - 1)
    expect(closed).toEqual([])
    tickAt(1_000 + RELAYED_LINK_GRACE_MS)
    expect(closed).toEqual([peer])
  })

  it('keeps a relayed link newer than every direct link: a dial of a peer that came back', () => {
    const { dialer, link, closed, tickAt } = setup(room())
    const peer = ids[1]!
    link(peer) // our link to the peer's previous page, stale
    vi.setSystemTime(T0 + 60_000)
    link(peer, true) // the signalling of its dial now
    dialer.setRoomPeers(relay, room())
    tickAt(60_000 + 10 * RELAYED_LINK_GRACE_MS)
    expect(closed).toEqual([])
  })
})
