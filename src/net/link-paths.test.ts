import { describe, expect, it } from 'vitest'
import {
  classifyStats,
  isLocalAddress,
  LINK_PROBE_MAX_MS,
  LinkPaths,
  QUIET_LINK_PROBE_MS,
} from './link-paths'
import type { Connection } from '@libp2p/interface'

/** a Chromium-shaped report: a transport naming its selected pair, and the two candidates */
function report(
  local: string,
  remote: string,
  remoteAddress = '203.0.113.7',
  localAddress = '10.1.0.2',
) {
  return [
    { id: 'T', type: 'transport', selectedCandidatePairId: 'P' },
    { id: 'P', type: 'candidate-pair', localCandidateId: 'L', remoteCandidateId: 'R' },
    { id: 'X', type: 'candidate-pair', localCandidateId: 'L2', remoteCandidateId: 'R' },
    { id: 'L', type: 'local-candidate', candidateType: local, address: localAddress },
    { id: 'L2', type: 'local-candidate', candidateType: 'relay', address: '203.0.113.1' },
    { id: 'R', type: 'remote-candidate', candidateType: remote, address: remoteAddress },
  ]
}

describe('classifyStats: the selected candidate pair says how a link goes', () => {
  it('a relay candidate on either end: through TURN', () => {
    expect(classifyStats(report('relay', 'host'))).toBe('turn')
    expect(classifyStats(report('host', 'relay'))).toBe('turn')
    expect(classifyStats(report('relay', 'relay'))).toBe('turn')
  })

  it('a reflexive address: through the NATs', () => {
    expect(classifyStats(report('host', 'srflx'))).toBe('nat')
    expect(classifyStats(report('srflx', 'host'))).toBe('nat')
    expect(classifyStats(report('prflx', 'host', 'a1b2.local', '198.51.100.4'))).toBe('nat')
    expect(classifyStats(report('host', 'prflx', '203.0.113.9'))).toBe('nat')
  })

  it('host candidates, or a peer-reflexive one on our own network: on the LAN', () => {
    expect(classifyStats(report('host', 'host', 'a1b2.local'))).toBe('lan')
    expect(classifyStats(report('host', 'prflx', '10.77.0.2'))).toBe('lan')
    expect(classifyStats(report('host', 'prflx', ''))).toBe('direct')
  })

  it('a friend on a flat LAN (mDNS names, our own address seen as peer-reflexive): on the LAN', () => {
    expect(classifyStats(report('prflx', 'host', 'c3d4.local', '10.77.0.1'))).toBe('lan')
    expect(classifyStats(report('prflx', 'prflx', '10.77.0.2', '10.77.0.1'))).toBe('lan')
  })

  it('the pair is read from the transport, not from any pair listed', () => {
    // pair X (local relay) is listed but not selected
    expect(classifyStats(report('host', 'host'))).toBe('lan')
  })

  it('node-datachannel and Firefox shapes: a nominated or selected pair, `ip` for the address', () => {
    const nodeShape = [
      {
        id: 'P',
        type: 'candidate-pair',
        localCandidateId: 'L',
        remoteCandidateId: 'R',
        nominated: true,
        state: 'succeeded',
      },
      { id: 'L', type: 'local-candidate', candidateType: 'host', ip: '127.0.0.1' },
      { id: 'R', type: 'remote-candidate', candidateType: 'prflx', ip: '127.0.0.1' },
    ]
    expect(classifyStats(nodeShape)).toBe('lan')
    const firefox = [
      {
        id: 'P',
        type: 'candidate-pair',
        localCandidateId: 'L',
        remoteCandidateId: 'R',
        selected: true,
      },
      { id: 'L', type: 'local-candidate', candidateType: 'relay' },
      { id: 'R', type: 'remote-candidate', candidateType: 'srflx' },
    ]
    expect(classifyStats(firefox)).toBe('turn')
  })

  it('no selected pair yet: unknown', () => {
    expect(classifyStats([])).toBeUndefined()
    expect(
      classifyStats([{ id: 'T', type: 'transport', selectedCandidatePairId: 'P' }]),
    ).toBeUndefined()
  })
})

describe('isLocalAddress', () => {
  it('private, loopback, link-local and mDNS are local; the rest is not', () => {
    for (const a of [
      '10.1.0.2',
      '172.16.0.1',
      '172.31.255.1',
      '192.168.1.5',
      '127.0.0.1',
      '169.254.1.1',
      'x.local',
      '::1',
      'fd00::1',
      'fe80::1',
    ])
      expect(isLocalAddress(a), a).toBe(true)
    for (const a of ['203.0.113.1', '172.32.0.1', '8.8.8.8', '100.64.0.1', '2001:db8::1'])
      expect(isLocalAddress(a), a).toBe(false)
  })
})

/** A WebRTC link whose getStats answers `stats()` at each call. */
function webrtcLink(stats: () => ReturnType<typeof report>): Connection {
  return {
    maConn: {
      peerConnection: { getStats: async () => new Map(stats().map((e) => [e.id, e])) },
    },
  } as unknown as Connection
}

describe('LinkPaths', () => {
  it('looks at a link at once, then less and less often, and says when its path changes', async () => {
    let now = 0
    let stats = report('host', 'srflx')
    let calls = 0
    const conn = webrtcLink(() => {
      calls++
      return stats
    })
    let changes = 0
    const paths = new LinkPaths({
      onChange: () => changes++,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      now: () => now,
    })
    const settle = () => new Promise((ok) => setTimeout(ok, 0))
    paths.tick([conn])
    await settle()
    expect(paths.path(conn)).toBe('nat')
    expect(changes).toBe(1)
    paths.tick([conn])
    await settle()
    expect(calls).toBe(1)
    now = 500
    stats = report('relay', 'srflx')
    paths.tick([conn])
    await settle()
    expect(paths.path(conn)).toBe('turn')
    expect(changes).toBe(2)
    now = 1_499
    paths.tick([conn])
    await settle()
    expect(calls).toBe(2)
    // a connection that is not WebRTC has no path and is never asked
    const tcp = {} as Connection
    paths.tick([tcp])
    expect(paths.path(tcp)).toBeUndefined()
  })

  it('a quiet room looks at a link every QUIET_LINK_PROBE_MS; waking brings the busy wait back', async () => {
    let now = 0
    let calls = 0
    const conn = webrtcLink(() => {
      calls++
      return report('host', 'host', 'a.local')
    })
    const paths = new LinkPaths({
      onChange: () => {},
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      now: () => now,
    })
    const settle = () => new Promise((ok) => setTimeout(ok, 0))
    const tickAt = async (t: number, quiet: boolean) => {
      now = t
      paths.tick([conn], quiet)
      await settle()
    }
    await tickAt(0, true)
    expect(calls).toBe(1)
    // quiet: not again within QUIET_LINK_PROBE_MS, however short the busy wait
    await tickAt(LINK_PROBE_MAX_MS, true)
    await tickAt(QUIET_LINK_PROBE_MS - 1, true)
    expect(calls).toBe(1)
    await tickAt(QUIET_LINK_PROBE_MS, true)
    expect(calls).toBe(2)
    // awake: the next look is at most LINK_PROBE_MAX_MS away again
    await tickAt(QUIET_LINK_PROBE_MS + 1, false)
    expect(calls).toBe(2)
    await tickAt(QUIET_LINK_PROBE_MS + 1 + LINK_PROBE_MAX_MS, false)
    expect(calls).toBe(3)
  })
})

describe('LinkPaths.carries', () => {
  const logger = { debug() {}, info() {}, warn() {}, error() {} }
  it('a link carries data once identify ran, or once a stream on it agreed on a protocol', () => {
    const paths = new LinkPaths({ onChange: () => {}, logger })
    const opening = { streams: [{ protocol: '' }] } as unknown as Connection
    expect(paths.carries(opening)).toBe(false)
    const streaming = { streams: [{ protocol: '/meshsub/1.2.0' }] } as unknown as Connection
    expect(paths.carries(streaming)).toBe(true)
    const identified = { streams: [] } as unknown as Connection
    paths.identified(identified)
    expect(paths.carries(identified)).toBe(true)
    // and it stays counted when its streams close
    ;(streaming as unknown as { streams: unknown[] }).streams = []
    expect(paths.carries(streaming)).toBe(true)
  })
})
