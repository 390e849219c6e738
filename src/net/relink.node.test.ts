/**
 * A peer that comes back under its PeerId while its old link hangs (a
 * reloaded tab, a restarted agent): real libp2p nodes over TCP on loopback,
 * with this swarm's GossipSub settings. The old link runs through a TCP proxy
 * that the test freezes: it stops forwarding without closing, as a link to a
 * page that is gone does until a ping catches it. B redials A whenever it
 * has no link to it left, as the swarm's dialer does for a peer it wants.
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
import { watchRelinks } from './relink'

type Node = Libp2p<{ identify: Identify; pubsub: GossipSub }>
const TOPIC = 'relink-test'
const PROBE_MS = 2_000
/** longer than the probe and the relink after it; shorter than libp2p's ping (every 10 s) takes to catch a hung link */
const WITHIN_MS = 6_000

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function node(privateKey: PrivateKey, relinks: boolean, listen: boolean): Promise<Node> {
  const libp2p = await createLibp2p({
    privateKey,
    addresses: { listen: listen ? ['/ip4/127.0.0.1/tcp/0'] : [] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: {
      identify: identify(),
      pubsub: swarmGossipsub({ maxRecordBytes: 4096, topics: [TOPIC], strikes: () => 0 }),
    },
  })
  const stop = new AbortController()
  if (relinks)
    watchRelinks({
      libp2p,
      isLink: () => true,
      logger: silentLogger,
      signal: stop.signal,
      probeTimeoutMs: PROBE_MS,
    })
  libp2p.services.pubsub.subscribe(TOPIC)
  cleanups.push(async () => {
    stop.abort()
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

/** A links to B's first instance through a proxy; the proxy freezes; B's second instance links directly. */
async function reload(relinks: boolean) {
  const a = await node(await generateKeyPair('Ed25519'), relinks, true)
  const key = await generateKeyPair('Ed25519')
  const b1 = await node(key, false, false)
  const proxy = await freezableProxy(a.getMultiaddrs()[0]!)
  await b1.dial(proxy.addr)
  expect(await hears(a, b1, WITHIN_MS)).toBe(true)
  proxy.freeze()
  const b2 = await node(key, false, false)
  redials(b2, a)
  await b2.dial(a.getMultiaddrs()[0]!)
  return { a, b2 }
}

describe('a peer back under its PeerId while its old link hangs', () => {
  it('hears our gossip again within seconds: the old link is caught, and the peer relinks afresh', async () => {
    const { a, b2 } = await reload(true)
    expect(await hears(a, b2, WITHIN_MS)).toBe(true)
    expect(a.getConnections(b2.peerId)).toHaveLength(1)
  })

  it('(the control: without relinking, GossipSub keeps sending into the hung link)', async () => {
    const { a, b2 } = await reload(false)
    expect(await hears(a, b2, WITHIN_MS)).toBe(false)
    expect(a.getConnections(b2.peerId)).toHaveLength(2)
  })
})

describe('two live links to one peer', () => {
  async function twoLinks() {
    const a = await node(await generateKeyPair('Ed25519'), true, true)
    const b = await node(await generateKeyPair('Ed25519'), false, false)
    redials(b, a)
    const proxy = await freezableProxy(a.getMultiaddrs()[0]!)
    const first = await b.dial(proxy.addr)
    expect(await hears(a, b, WITHIN_MS)).toBe(true)
    await b.dial(a.getMultiaddrs()[0]!, { force: true })
    return { a, b, first }
  }

  it('both stay: the older one answers its probe', async () => {
    const { a, b } = await twoLinks()
    await new Promise((resolve) => setTimeout(resolve, PROBE_MS + 500))
    expect(a.getConnections(b.peerId).filter((c) => c.status === 'open')).toHaveLength(2)
    expect(await hears(a, b, WITHIN_MS)).toBe(true)
  })

  it('when one closes, the other goes too, and gossip flows over the fresh link', async () => {
    const { a, b, first } = await twoLinks()
    const closed: string[] = []
    a.addEventListener('connection:close', (evt) => void closed.push(evt.detail.id))
    await first.close()
    expect(await hears(a, b, WITHIN_MS)).toBe(true)
    expect(closed).toHaveLength(2)
    expect(a.getConnections(b.peerId)).toHaveLength(1)
  })
})
