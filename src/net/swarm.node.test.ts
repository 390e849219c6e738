/**
 * The Node variant of the swarm node against a real relay, all on loopback:
 * discovery, direct WebRTC links (node-datachannel), gossip with validation,
 * anti-entropy sync (catch-up, junk, rooms).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createRelay, type Relay } from '../../relay/relay'
import { createSwarmNode, type NodeSwarmNodeInit } from './node.node.js'
import { silentLogger, type NetLogger } from './log'
import { MemoryStore, recordIdOf, testValidate } from './testing/memory-store'
import { RecordRejectedError } from './errors'
import type { LinkKind, SwarmNode, SyncReport } from './types'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { RELAY_V2_HOP_CODEC } from '@libp2p/circuit-relay-v2'
import {
  GOSSIP_BUCKET_CAPACITY,
  GOSSIP_BUCKET_REFILL_PER_S,
  RELAYED_LINK_GRACE_MS,
} from './constants'

const running: Array<{ stop(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((n) => n.stop()))
})

async function relay(logs?: string[]): Promise<Relay> {
  const key = await generateKeyPair('Ed25519')
  const logger = logs === undefined ? silentLogger : collectingLogger(logs)
  const r = await createRelay({ port: 0, privateKey: key, logger })
  running.push(r)
  return r
}

interface Peer {
  node: SwarmNode
  store: MemoryStore
  logs: string[]
}

function collectingLogger(lines: string[]): NetLogger {
  const push = (level: string) => (msg: string) => void lines.push(`${level} ${msg}`)
  return { debug: () => {}, info: push('info'), warn: push('warn'), error: push('error') }
}

async function peer(r: Relay, extra: Partial<NodeSwarmNodeInit> = {}): Promise<Peer> {
  const store = (extra.store as MemoryStore | undefined) ?? new MemoryStore()
  const logs: string[] = []
  const node = await createSwarmNode({
    relays: r.multiaddrs,
    room: 'test',
    validate: testValidate,
    store,
    logger: collectingLogger(logs),
    rtcBindAddress: '127.0.0.1',
    // WebRTC between Node peers, as a Node peer links with tabs (TCP has its own test)
    directLinks: false,
    ...extra,
  })
  running.push(node)
  return { node, store, logs }
}

/** `what` may be a function: it then says the state at the timeout, not at the call. */
async function waitFor(
  cond: () => boolean,
  ms = 15_000,
  what: string | (() => string) = 'condition',
): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const enc = (s: string) => new TextEncoder().encode(s)
const dec = (b: Uint8Array) => new TextDecoder().decode(b)

function linked(a: SwarmNode, b: SwarmNode, kind: LinkKind = 'direct-webrtc'): boolean {
  return a.connections().peers.some((p) => p.peerId === b.peerId && p.kind === kind)
}

// Each wait below has its own bound, and the bounds of one test add up to
// more than vitest's default 20 s: on a loaded machine (CI's two cores,
// shared with another test worker) the test must fail at the wait that was
// slow, naming it, not at a test-wide timeout that names nothing.
describe('swarm node (Node variant)', { timeout: 60_000 }, () => {
  it('finds a room peer through the relay, links over WebRTC, gossips, and rejects junk', async () => {
    const relayLogs: string[] = []
    const r = await relay(relayLogs)
    const a = await peer(r)
    const b = await peer(r)
    await waitFor(() => linked(a.node, b.node) && linked(b.node, a.node), 15_000, 'direct link')
    expect(a.node.connections().relay).toBe('up')
    // both on loopback, host candidates: the link says it goes across the LAN
    await waitFor(
      () => a.node.connections().peers.some((p) => p.peerId === b.node.peerId && p.path === 'lan'),
      5_000,
      'link path',
    )
    // each peer joined its room once: one discovery stream, not a churn of them
    expect(relayLogs.filter((l) => l.startsWith('info discover: joined')).length).toBe(2)

    const got: string[] = []
    b.node.subscribe('t', (bytes, from) => {
      expect(from).toBe(a.node.peerId)
      got.push(new TextDecoder().decode(bytes))
    })
    a.node.subscribe('t', () => {})
    // publish (distinct bytes each time: the message id is the content)
    // until the subscription has propagated and one is delivered
    let n = 0
    await waitFor(
      () => {
        void a.node.publish('t', enc(`hello ${n++}`))
        return got.length > 0
      },
      10_000,
      'gossip',
    )

    // once linked directly, the relayed (signalling) link is closed: the
    // relay carries no circuit for the pair any more
    const hopStreams = () =>
      r.libp2p
        .getConnections()
        .flatMap((c) => c.streams)
        .filter((st) => st.protocol === RELAY_V2_HOP_CODEC).length
    await waitFor(() => hopStreams() === 0, RELAYED_LINK_GRACE_MS + 5_000, 'relayed link closed')
    expect(linked(a.node, b.node)).toBe(true)

    // our own validator refuses junk before it leaves
    await expect(a.node.publish('t', Uint8Array.of(0xff, 1))).rejects.toBeInstanceOf(
      RecordRejectedError,
    )
  })

  it('links two Node peers over TCP, and a Node peer with no TCP address over WebRTC', async () => {
    const r = await relay()
    const a = await peer(r, { directLinks: true })
    const b = await peer(r, { directLinks: true })
    await waitFor(
      () => linked(a.node, b.node, 'other') && linked(b.node, a.node, 'other'),
      15_000,
      'TCP link',
    )
    const got: string[] = []
    b.node.subscribe('t', (bytes) => got.push(new TextDecoder().decode(bytes)))
    a.node.subscribe('t', () => {})
    let n = 0
    await waitFor(
      () => {
        void a.node.publish('t', enc(`over tcp ${n++}`))
        return got.length > 0
      },
      10_000,
      'gossip over TCP',
    )
    // like a tab, c neither announces nor dials TCP: a and b reach it over WebRTC
    const c = await peer(r, { directLinks: false, listen: ['/p2p-circuit', '/webrtc'] })
    await waitFor(
      () => linked(a.node, c.node) && linked(b.node, c.node),
      20_000,
      'WebRTC links to the peer without TCP',
    )
    expect(linked(a.node, b.node, 'other')).toBe(true)
  })

  it('does not deliver what the receiver rejects (a peer with a laxer validator publishes junk)', async () => {
    const r = await relay()
    const evil = await peer(r, { validate: () => 'accept' })
    const good = await peer(r)
    await waitFor(() => linked(evil.node, good.node), 15_000, 'direct link')
    const got: Uint8Array[] = []
    good.node.subscribe('t', (bytes) => got.push(bytes))
    evil.node.subscribe('t', () => {})
    await new Promise((res) => setTimeout(res, 1_500))
    const junk = Uint8Array.of(0xff, 0xff, 0xff)
    const res = await evil.node.publish('t', junk)
    expect(res.recipients).toBe(1)
    await evil.node.publish('t', enc('fine'))
    await waitFor(() => got.length > 0, 5_000, 'valid message')
    expect(got.map((b) => new TextDecoder().decode(b))).toEqual(['fine'])
    expect(good.logs.some((l) => l.startsWith('warn gossip: message rejected'))).toBe(true)
  })

  it('takes an honest burst whole, and cuts off a neighbour that floods', async () => {
    const r = await relay()
    const flooder = await peer(r)
    // test records name their author as their first word (the app's name it in the record)
    const good = await peer(r, { authorOf: (_t, bytes) => dec(bytes).split(' ')[0] })
    await waitFor(() => linked(flooder.node, good.node), 15_000, 'direct link')
    let got = 0
    good.node.subscribe('t', () => got++)
    flooder.node.subscribe('t', () => {})
    await new Promise((res) => setTimeout(res, 1_500))
    // an honest burst (a level of a plan, many results at once) arrives whole
    const BURST = 400
    await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        flooder.node.publish('t', enc(`${flooder.node.peerId} burst ${i}`)),
      ),
    )
    await waitFor(() => got === BURST, 10_000, 'the whole burst')
    expect(good.logs.some((l) => l.includes('over its rate limit'))).toBe(false)
    // a flood: at most what is left in its bucket plus the refill, then a ban
    const t0 = Date.now()
    const FLOOD = 3_000
    await Promise.all(
      Array.from({ length: FLOOD }, (_, i) =>
        flooder.node.publish('t', enc(`${flooder.node.peerId} flood ${i}`)),
      ),
    )
    await waitFor(() => !linked(good.node, flooder.node), 10_000, 'the flooder cut off')
    const seconds = (Date.now() - t0) / 1000
    const flood = got - BURST
    console.log(`flood: ${flood} of ${FLOOD} delivered in ${seconds.toFixed(1)} s, then banned`)
    expect(flood).toBeLessThanOrEqual(
      GOSSIP_BUCKET_CAPACITY - BURST + Math.ceil((seconds + 2) * GOSSIP_BUCKET_REFILL_PER_S),
    )
    expect(good.logs.some((l) => l.startsWith('warn gossip: neighbour over its rate limit'))).toBe(
      true,
    )
    expect(good.logs.some((l) => l.startsWith('warn peer banned'))).toBe(true)
  })

  it('a quiet room keeps ring links only, and wakes at the next record it carries', async () => {
    const r = await relay()
    const quick = { quietLinksAfterMs: 3_000, surplusLinkGraceMs: 500 }
    const peers = await Promise.all(Array.from({ length: 5 }, () => peer(r, quick)))
    const nodes = peers.map((p) => p.node)
    const links = () =>
      nodes.map((n) => n.connections().peers.filter((p) => p.kind !== 'relayed').length)
    // the plan layer's part: every new record is activity (runtime.ts does this)
    const got = nodes.map(() => 0)
    nodes.forEach((n, i) =>
      n.subscribe('t', () => {
        got[i]!++
        n.roomActive()
      }),
    )
    // records keep coming (a run): the room stays awake and links up whole
    const busyUntil = async (what: string, cond: () => boolean) => {
      const busy = setInterval(() => nodes.forEach((n) => n.roomActive()), 500)
      try {
        await waitFor(cond, 20_000, () => `${what} (links ${links()})`)
      } finally {
        clearInterval(busy)
      }
    }
    await busyUntil('a full mesh', () => links().every((l) => l === 4))
    // nothing happens: two links a peer, a ring that still carries gossip
    await waitFor(
      () => links().every((l) => l === 2),
      20_000,
      () => `a ring (links ${links()})`,
    )
    expect(nodes.every((n) => n.connections().quiet)).toBe(true)
    nodes[0]!.roomActive()
    await nodes[0]!.publish('t', enc('news'))
    // each peer wakes when the record reaches it. Here the room sleeps again
    // 3 s after its last record, so each is watched from its record on, not
    // all at once (a record slow to go round once ended the window first)
    const seenAwake = nodes.map(() => false)
    await waitFor(
      () => {
        nodes.forEach((n, i) => {
          if ((i === 0 || got[i]! > 0) && !n.connections().quiet) seenAwake[i] = true
        })
        return got.slice(1).every((g) => g === 1) && seenAwake.every(Boolean)
      },
      10_000,
      () => `the record over the ring, waking each peer (got ${got}, awake ${seenAwake})`,
    )
    await busyUntil('a full mesh again', () => links().every((l) => l === 4))
  })

  it('a late joiner gets every record through sync, once, and quickly', async () => {
    const r = await relay()
    const a = await peer(r)
    const b = await peer(r)
    const N = 3_000
    for (let i = 0; i < N; i++) a.store.put(enc(`record ${i} ${'x'.repeat(i % 200)}`))
    for (let i = 0; i < 50; i++) b.store.put(enc(`b-only ${i}`))
    await waitFor(() => linked(a.node, b.node), 15_000, 'direct link a-b')
    await waitFor(() => a.store.records.size === N + 50 && b.store.records.size === N + 50)

    const reports: SyncReport[] = []
    const late = await peer(r)
    late.node.on('sync', (rep) => reports.push(rep))
    const t0 = Date.now()
    await waitFor(() => late.store.records.size === N + 50, 10_000, 'sync')
    const ms = Date.now() - t0
    console.log(`sync: late joiner got ${N + 50} records ${ms} ms after start`)
    // each record was asked for once, across its sessions with a and b
    // (a session reports once its stream has closed, just after the last record)
    const accepted = () => reports.reduce((n, rep) => n + rep.accepted, 0)
    await waitFor(() => accepted() >= N + 50, 5_000, 'sync reports')
    await new Promise((res) => setTimeout(res, 200))
    expect(accepted()).toBe(N + 50)
    expect(late.store.rejected).toEqual([])

    // a second session finds the sets equal and exchanges nothing more
    await waitFor(() => linked(late.node, a.node) && linked(late.node, b.node), 10_000, 'links')
    const again = await late.node.syncNow()
    expect(again.length).toBe(2)
    for (const rep of again) expect(rep).toMatchObject({ inSync: true, sent: 0, accepted: 0 })
  })

  it('rejects and logs junk records offered by sync, and keeps the good ones', async () => {
    const r = await relay()
    // an evil store that holds junk under made-up ids
    const evilStore = new MemoryStore()
    const junk = [Uint8Array.of(0xff, 1), Uint8Array.of(0xff, 2), Uint8Array.of(0xff, 3)]
    for (const j of junk) evilStore.records.set(recordIdOf(j), j)
    evilStore.put(enc('a good one'))
    const evil = await peer(r, { store: evilStore })
    const good = await peer(r)
    await waitFor(() => good.store.records.size === 1 && good.store.rejected.length === 3)
    expect([...good.store.records.values()].map((b) => new TextDecoder().decode(b))).toEqual([
      'a good one',
    ])
    expect(good.logs.filter((l) => l.startsWith('warn sync: record rejected')).length).toBe(3)
    expect(evil.node.peerId).not.toBe(good.node.peerId)
  })

  it('never mixes rooms: peers of another room are not linked, and sync refuses them', async () => {
    const r = await relay()
    const a = await peer(r, { room: 'one' })
    const b = await peer(r, { room: 'two' })
    a.store.put(enc('only in one'))
    const c = await peer(r, { room: 'one' })
    await waitFor(() => linked(a.node, c.node), 15_000, 'same-room link')
    await waitFor(() => c.store.records.size === 1)
    expect(a.node.connections().known).toBe(1)
    expect(linked(a.node, b.node) || linked(b.node, a.node)).toBe(false)
    expect(b.store.records.size).toBe(0)
  })
})
