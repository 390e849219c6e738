/**
 * A peer that GossipSub lost while a link to it stands: real libp2p nodes
 * over TCP on loopback, with this swarm's GossipSub settings. A hung link
 * runs through a TCP proxy that the test freezes (it forwards nothing and
 * closes nothing, as a link to a vanished page or a sleeping laptop does)
 * until libp2p's ping aborts it. B redials A whenever it has no link left to
 * it, as the swarm's dialer does for a peer it wants.
 */
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createLibp2p, type Libp2p } from 'libp2p'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { identify, type Identify } from '@libp2p/identify'
import type { GossipSub } from '@libp2p/gossipsub'
import type { PrivateKey } from '@libp2p/interface'
import { noise } from '@libp2p/noise'
import { tcp } from '@libp2p/tcp'
import { yamux } from '@libp2p/yamux'
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr'
import { swarmGossipsub } from './gossip'
import { silentLogger } from './log'
import { createRelinker, deafPeers, staleLinks } from './relink'

type Node = Libp2p<{ identify: Identify; pubsub: GossipSub }>
const TOPIC = 'relink-test'
/** A pings its links this often, and aborts one unanswered for PING_TIMEOUT_MS */
const PING_MS = 500
const PING_TIMEOUT_MS = 1_000
/** how long a link stands before its peer may be taken for deaf (DEAF_LINK_AFTER_MS in the swarm) */
const DEAF_AFTER_MS = 1_000
/** long enough for the ping to catch the hung link, the relink, and a message */
const WITHIN_MS = 6_000

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

interface NodeOptions {
  /** the relinker's tick (deaf peers) runs */
  relinks?: boolean
  /** the relinker hears of every link as it opens (stale links), and takes links this much older for stale */
  staleAgeMs?: number
  listen?: boolean
  /** libp2p pings every link this often; default PING_MS */
  pingMs?: number
}

async function node(privateKey: PrivateKey, options: NodeOptions = {}): Promise<Node> {
  const libp2p = await createLibp2p({
    privateKey,
    addresses: { listen: options.listen === true ? ['/ip4/127.0.0.1/tcp/0'] : [] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    connectionMonitor: {
      pingInterval: options.pingMs ?? PING_MS,
      pingTimeout: { minTimeout: PING_TIMEOUT_MS, maxTimeout: PING_TIMEOUT_MS },
    },
    services: {
      identify: identify(),
      pubsub: swarmGossipsub({ maxRecordBytes: 4096, topics: [TOPIC], strikes: () => 0 }),
    },
  })
  // the swarm's ticker, faster
  const relinker = createRelinker({
    libp2p,
    isLink: () => true,
    logger: silentLogger,
    afterMs: DEAF_AFTER_MS,
    ...(options.staleAgeMs !== undefined ? { staleAgeMs: options.staleAgeMs } : {}),
  })
  const ticker = options.relinks === true ? setInterval(() => relinker.tick(), 200) : undefined
  if (options.staleAgeMs !== undefined) {
    libp2p.addEventListener('connection:open', (evt) => relinker.linkOpened(evt.detail))
  }
  libp2p.services.pubsub.subscribe(TOPIC)
  cleanups.push(async () => {
    clearInterval(ticker)
    await libp2p.stop()
  })
  return libp2p
}

/** A TCP proxy to `target` that can be frozen: it then forwards nothing and closes nothing. */
async function freezableProxy(target: Multiaddr): Promise<{ addr: Multiaddr; freeze(): void }> {
  const [, , , , port, , peer] = target.toString().split('/')
  let frozen = false
  const sockets: net.Socket[] = []
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), '127.0.0.1')
    sockets.push(client, upstream)
    client.on('data', (data) => void (frozen || upstream.write(data)))
    upstream.on('data', (data) => void (frozen || client.write(data)))
    // until frozen, a close on either side closes the other
    client.on('close', () => void (frozen || upstream.destroy()))
    upstream.on('close', () => void (frozen || client.destroy()))
    client.on('error', () => {})
    upstream.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy()
    server.close()
  })
  const { port: proxyPort } = server.address() as net.AddressInfo
  return {
    addr: multiaddr(`/ip4/127.0.0.1/tcp/${proxyPort}/p2p/${peer}`),
    freeze: () => void (frozen = true),
  }
}

/** Resolves when `to` receives a message `from` publishes, published every 100 ms meanwhile. */
async function hears(from: Node, to: Node, withinMs: number): Promise<boolean> {
  let heard = false
  const listener = () => void (heard = true)
  to.services.pubsub.addEventListener('message', listener)
  try {
    for (let i = 0, t0 = Date.now(); Date.now() - t0 < withinMs; i++) {
      await from.services.pubsub.publish(TOPIC, new TextEncoder().encode(`${Date.now()} ${i}`))
      await new Promise((resolve) => setTimeout(resolve, 100))
      if (heard) return true
    }
    return false
  } finally {
    to.services.pubsub.removeEventListener('message', listener)
  }
}

/** B links to A again whenever it has no link left to it (the dialer's part). */
function redials(b: Node, a: Node): void {
  b.addEventListener('peer:disconnect', (evt) => {
    if (evt.detail.equals(a.peerId)) b.dial(a.getMultiaddrs()[0]!).catch(() => {})
  })
}

/**
 * A links to B's first instance through a proxy; the proxy freezes; B's
 * second instance links directly, `after` ms after the first linked.
 */
async function reload(a: Node, after = 0) {
  const key = await generateKeyPair('Ed25519')
  const b1 = await node(key)
  const proxy = await freezableProxy(a.getMultiaddrs()[0]!)
  const t0 = Date.now()
  await b1.dial(proxy.addr)
  expect(await hears(a, b1, WITHIN_MS)).toBe(true)
  proxy.freeze()
  await new Promise((resolve) => setTimeout(resolve, after - (Date.now() - t0)))
  const b2 = await node(key)
  redials(b2, a)
  await b2.dial(a.getMultiaddrs()[0]!)
  return { a, b2 }
}

describe('deafPeers', () => {
  const now = 100_000
  const link = (peer: string, age: number, gossipOut = true, gossipIn = true) => ({
    peer,
    openedAt: now - age,
    gossipOut,
    gossipIn,
  })
  it('lists a peer linked long enough whose links carry no GossipSub stream one way', () => {
    const links = [
      link('fine', 30_000),
      link('split', 30_000, true, false), // its streams are on two links
      link('split', 1_000, false, true),
      link('deaf', 1_000, false, false), // its oldest link counts
      link('deaf', 30_000, false, false),
      link('one-way', 30_000, true, false),
      link('young', 5_000, false, false),
    ]
    expect(deafPeers(links, now, () => 20_000)).toEqual(['deaf', 'one-way'])
    // a peer relinked before waits longer
    expect(deafPeers(links, now, (p) => (p === 'deaf' ? 40_000 : 20_000))).toEqual(['one-way'])
  })
})

describe('createRelinker', () => {
  /** a fake link to `peer` that opened at `openedAt`, with GossipSub streams or none */
  function fakeLink(peer: string, openedAt: number, gossip: boolean) {
    const link = {
      remotePeer: { toString: () => peer },
      status: 'open',
      timeline: { open: openedAt },
      streams: gossip
        ? ['outbound', 'inbound'].map((direction) => ({
            status: 'open',
            protocol: '/meshsub/1.2.0',
            direction,
          }))
        : [],
      aborted: 0,
      abort: () => void link.aborted++,
    }
    return link
  }

  it('relinks a deaf peer, then waits twice as long before relinking it again', () => {
    let links = [fakeLink('p', 0, false)]
    const relinker = createRelinker({
      libp2p: { getConnections: () => links as never },
      isLink: () => true,
      logger: silentLogger,
      afterMs: 1_000,
      maxAfterMs: 3_000,
    })
    /** a fresh link at `at`, with or without streams; how long until it is relinked (ticks every ms) */
    const relinkedAfter = (at: number, gossip = false): number | null => {
      links = [fakeLink('p', at, gossip)]
      for (let t = at; t <= at + 10_000; t++) {
        relinker.tick(t)
        if (links[0]!.aborted > 0) return t - at
      }
      return null
    }
    expect([relinkedAfter(0), relinkedAfter(20_000), relinkedAfter(40_000)]).toEqual([
      1_000, 2_000, 3_000,
    ])
    // once seen with its streams, it starts from 1 s again
    expect(relinkedAfter(60_000, true)).toBeNull()
    expect(relinkedAfter(80_000)).toBe(1_000)
  })
})

describe('a peer back under its PeerId while its old link hangs', () => {
  const listening = (options: NodeOptions = {}) =>
    generateKeyPair('Ed25519').then((key) => node(key, { listen: true, ...options }))

  it('hears our gossip again once the hung link is caught: GossipSub lost it, we relink', async () => {
    const { a, b2 } = await reload(await listening({ relinks: true }))
    expect(await hears(a, b2, WITHIN_MS)).toBe(true)
    expect(a.getConnections(b2.peerId)).toHaveLength(1)
  })

  it('(the control: without relinking, GossipSub never takes the peer up again on the new link)', async () => {
    const { a, b2 } = await reload(await listening())
    expect(await hears(a, b2, WITHIN_MS)).toBe(false)
    // the hung link was caught; the new one stands, unused
    expect(a.getConnections(b2.peerId)).toHaveLength(1)
  })

  // no ping catches the hung link in these two, and no deaf peer is relinked (no tick)
  const slowPing = { pingMs: 60_000 }
  const STALE_AGE_MS = 300
  /** our gossip reaches the new link within this (about 0.7 s on an idle machine) */
  const AT_ONCE_MS = 3_000

  it('hears our gossip at once when its new link opens: the older one is stale, and closed', async () => {
    const a = await listening({ ...slowPing, staleAgeMs: STALE_AGE_MS })
    const { b2 } = await reload(a, STALE_AGE_MS + 200)
    expect(await hears(a, b2, AT_ONCE_MS)).toBe(true)
    expect(a.getConnections(b2.peerId)).toHaveLength(1)
  })

  it('(the control: without that, our gossip goes into the hung link)', async () => {
    const a = await listening(slowPing)
    const { b2 } = await reload(a, STALE_AGE_MS + 200)
    expect(await hears(a, b2, AT_ONCE_MS)).toBe(false)
    expect(a.getConnections(b2.peerId)).toHaveLength(2)
  })
})

describe('staleLinks', () => {
  it('lists the links to the same peer that opened long enough before the new one', () => {
    const links = [
      { peer: 'p', openedAt: 1_000 }, // stale
      { peer: 'p', openedAt: 8_000 }, // the other half of a simultaneous dial
      { peer: 'q', openedAt: 1_000 }, // another peer
    ]
    expect(staleLinks(links, { peer: 'p', openedAt: 10_000 }, 5_000)).toEqual([links[0]])
    expect(staleLinks(links, { peer: 'p', openedAt: 5_999 }, 5_000)).toEqual([])
  })
})

describe('two live links to one peer', () => {
  it('when the one GossipSub uses closes cleanly, gossip flows again over a fresh link', async () => {
    const a = await node(await generateKeyPair('Ed25519'), { relinks: true, listen: true })
    const b = await node(await generateKeyPair('Ed25519'))
    redials(b, a)
    const proxy = await freezableProxy(a.getMultiaddrs()[0]!)
    const first = await b.dial(proxy.addr)
    expect(await hears(a, b, WITHIN_MS)).toBe(true)
    await b.dial(a.getMultiaddrs()[0]!, { force: true })
    // both stand while GossipSub has its streams on one of them
    await new Promise((resolve) => setTimeout(resolve, DEAF_AFTER_MS + 500))
    expect(a.getConnections(b.peerId)).toHaveLength(2)
    await first.close()
    expect(await hears(a, b, WITHIN_MS)).toBe(true)
  })
})
