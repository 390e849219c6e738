/**
 * A ban refuses: real libp2p nodes (TCP, Noise, Yamux, circuit relay v2 on a
 * real relay) with the ban gater. While A bans B, B can open no link to A,
 * neither directly nor through the relay, and A dials nothing to B; once the
 * ban is over, B links again. A ban reaches the member: B's fellow PeerIds of
 * one member (bound before the ban, or after it) are refused too.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { circuitRelayTransport } from '@libp2p/circuit-relay-v2'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { identify } from '@libp2p/identify'
import { noise } from '@libp2p/noise'
import { tcp } from '@libp2p/tcp'
import { webSockets } from '@libp2p/websockets'
import { yamux } from '@libp2p/yamux'
import { multiaddr } from '@multiformats/multiaddr'
import { createLibp2p, type Libp2p } from 'libp2p'
import { createRelay } from '../../relay/relay'
import { banGater } from './ban-gater'
import { silentLogger } from './log'
import { Strikes } from './strikes'

const BAN_MS = 3_000
const running: Array<{ stop(): void | Promise<void> }> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((n) => n.stop()))
})

async function node(strikes?: Strikes): Promise<Libp2p> {
  const n = await createLibp2p({
    addresses: { listen: ['/ip4/127.0.0.1/tcp/0', '/p2p-circuit'] },
    transports: [tcp(), webSockets(), circuitRelayTransport()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: { identify: identify() },
    ...(strikes ? { connectionGater: banGater((peer) => strikes.isBanned(peer)) } : {}),
  })
  running.push(n)
  return n
}

async function waitFor(cond: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** 'linked', or why the dial failed */
const outcome = (dial: Promise<unknown>): Promise<string> =>
  dial.then(
    () => 'linked',
    (err: Error) => err.name,
  )

describe('a ban refuses links', () => {
  it('refuses a banned peer’s direct and relayed links, and our dials to it, for the ban’s duration', async () => {
    const relay = await createRelay({
      port: 0,
      privateKey: await generateKeyPair('Ed25519'),
      logger: silentLogger,
    })
    running.push(relay)
    const strikes = new Strikes({ banMs: BAN_MS })
    const a = await node(strikes)
    const b = await node()
    await a.dial(multiaddr(relay.multiaddrs[0]!))
    await waitFor(
      () => a.getMultiaddrs().some((ma) => ma.toString().includes('/p2p-circuit')),
      10_000,
      'a relay reservation',
    )
    const direct = a.getMultiaddrs().find((ma) => !ma.toString().includes('/p2p-circuit'))!
    const relayed = a.getMultiaddrs().find((ma) => ma.toString().includes('/p2p-circuit'))!

    const opened: string[] = []
    a.addEventListener('connection:open', (evt) => {
      if (evt.detail.remotePeer.equals(b.peerId)) opened.push(evt.detail.remoteAddr.toString())
    })
    strikes.strike(b.peerId.toString(), 'test', 100)
    const bannedAt = Date.now()

    // direct TCP: A learns who dials only from the Noise handshake, and refuses
    // the link right after it, before the muxer: B's dial may resolve (its
    // side of the handshake ended first), but the link is gone at once and
    // never opened at A
    const early = await outcome(b.dial(direct))
    await waitFor(() => b.getConnections(a.peerId).length === 0, 2_000, 'B’s end to close')
    expect(['linked', 'EncryptionFailedError', 'ConnectionInterceptedError']).toContain(early)
    // through the relay (and so WebRTC, signalled over it): refused before any handshake
    expect(await outcome(b.dial(relayed))).not.toBe('linked')
    // our own dials: refused before they start
    expect(await outcome(a.dial(b.peerId))).not.toBe('linked')
    expect(await outcome(a.dial(b.getMultiaddrs()[0]!))).not.toBe('linked')
    expect(Date.now() - bannedAt).toBeLessThan(BAN_MS)
    expect(opened).toEqual([])
    expect(a.getConnections(b.peerId)).toEqual([])

    // after the ban, the same dials link
    await new Promise((r) => setTimeout(r, bannedAt + BAN_MS - Date.now() + 50))
    expect(await outcome(b.dial(relayed))).toBe('linked')
    await waitFor(() => opened.length === 1, 5_000, 'A to see the relayed link')
    await b.hangUp(a.peerId)
    const conn = await b.dial(direct)
    expect(conn.remotePeer.equals(a.peerId)).toBe(true)
    await waitFor(() => opened.length === 2, 5_000, 'A to see the direct link')
  }, 30_000)

  it('refuses every PeerId of a banned PeerId’s member, one bound after the ban too', async () => {
    const relay = await createRelay({
      port: 0,
      privateKey: await generateKeyPair('Ed25519'),
      logger: silentLogger,
    })
    running.push(relay)
    const members = new Map<string, string>()
    const strikes = new Strikes({ banMs: 30_000, memberOf: (peer) => members.get(peer) })
    const a = await node(strikes)
    const [b, c, d, e] = await Promise.all([node(), node(), node(), node()])
    members.set(b.peerId.toString(), 'mallory')
    members.set(c.peerId.toString(), 'mallory')
    members.set(e.peerId.toString(), 'bob')
    await a.dial(multiaddr(relay.multiaddrs[0]!))
    await waitFor(
      () => a.getMultiaddrs().some((ma) => ma.toString().includes('/p2p-circuit')),
      10_000,
      'a relay reservation',
    )
    const relayed = a.getMultiaddrs().find((ma) => ma.toString().includes('/p2p-circuit'))!
    // D links before the ban: it is nobody's yet
    expect(await outcome(d.dial(relayed))).toBe('linked')
    await waitFor(() => a.getConnections(d.peerId).length > 0, 5_000, 'A to see D')

    strikes.strike(b.peerId.toString(), 'test', 100)
    // C, another PeerId of B's member: refused through the relay and by our dials
    expect(await outcome(c.dial(relayed))).not.toBe('linked')
    expect(await outcome(a.dial(c.getMultiaddrs()[0]!))).not.toBe('linked')
    expect(a.getConnections(c.peerId)).toEqual([])
    // another member's PeerId links as before
    expect(await outcome(e.dial(relayed))).toBe('linked')
    // D's bind to the banned member arrives: its next link is refused
    await d.hangUp(a.peerId)
    members.set(d.peerId.toString(), 'mallory')
    expect(await outcome(d.dial(relayed))).not.toBe('linked')
    expect(a.getConnections(d.peerId)).toEqual([])
  }, 30_000)
})
