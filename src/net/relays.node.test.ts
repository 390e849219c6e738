/**
 * Several relays, for real on loopback (relay/relay.ts, Node swarm nodes):
 * a peer given two relays holds a reservation on both; peers given
 * different relays of the list find each other through the one they share;
 * with one relay gone, a newcomer joins through the other.
 */
import { generateKeyPair } from '@libp2p/crypto/keys'
import { multiaddr } from '@multiformats/multiaddr'
import { afterEach, describe, expect, it } from 'vitest'
import { createRelay, type Relay } from '../../relay/relay'
import { silentLogger } from './log'
import { createSwarmNode } from './node.node.js'
import { circuitListen } from './relay-client'
import { MemoryStore, testValidate } from './testing/memory-store'
import type { SwarmNode } from './types'

const running: Array<{ stop(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((n) => n.stop().catch(() => {})))
})

async function relay(): Promise<Relay> {
  const r = await createRelay({
    port: 0,
    privateKey: await generateKeyPair('Ed25519'),
    logger: silentLogger,
  })
  running.push(r)
  return r
}

async function peer(relays: Relay[]): Promise<SwarmNode> {
  const node = await createSwarmNode({
    relays: relays.flatMap((r) => r.multiaddrs),
    room: 'relays',
    validate: testValidate,
    store: new MemoryStore(),
    logger: silentLogger,
    rtcBindAddress: '127.0.0.1',
  })
  running.push(node)
  return node
}

async function waitFor(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const reservedOn = (node: SwarmNode) =>
  node
    .connections()
    .relays.filter((r) => r.reserved)
    .map((r) => r.peerId)
    .sort()
const linkedTo = (a: SwarmNode, b: SwarmNode) =>
  a.connections().peers.some((p) => p.peerId === b.peerId && p.kind !== 'relayed')

describe('several relays', () => {
  it('listens on one /p2p-circuit per relay, so as to hold a reservation on each', async () => {
    const id = (await relay()).peerId
    const one = multiaddr(`/ip4/127.0.0.1/tcp/1/ws/p2p/${id}`)
    const sameRelay = multiaddr(`/ip4/127.0.0.2/tcp/1/ws/p2p/${id}`)
    const other = multiaddr(
      `/ip4/127.0.0.1/tcp/2/ws/p2p/12D3KooWQhjarUFZ3AGcpwuxsu6NZ4YBQRNzwBUE9imFXv6V3J6f`,
    )
    const listen = ['/ip4/127.0.0.1/tcp/0', '/p2p-circuit', '/webrtc']
    expect(circuitListen(listen, [])).toEqual(listen)
    expect(circuitListen(listen, [one, sameRelay])).toEqual(listen)
    expect(circuitListen(listen, [one, other])).toEqual([
      '/ip4/127.0.0.1/tcp/0',
      '/p2p-circuit',
      '/p2p-circuit',
      '/webrtc',
    ])
  })

  it('peers registered at different relays of the list find each other; with one relay gone, a newcomer joins through the other', async () => {
    const [r1, r2] = [await relay(), await relay()]
    const both = await peer([r1, r2])
    const onlyFirst = await peer([r1])
    const onlySecond = await peer([r2])
    await waitFor(() => reservedOn(both).length === 2, 'reservations on both relays')
    expect(reservedOn(both)).toEqual([r1.peerId, r2.peerId].sort())
    await waitFor(
      () => linkedTo(both, onlyFirst) && linkedTo(both, onlySecond),
      'links from the peer on both relays to each of the others',
    )

    await r1.stop()
    await waitFor(() => reservedOn(both).length === 1, 'the first relay seen gone')
    expect(reservedOn(both)).toEqual([r2.peerId])
    const late = await peer([r1, r2])
    await waitFor(
      () => linkedTo(late, both) && linkedTo(late, onlySecond),
      'the newcomer linked through the second relay',
    )
    expect(reservedOn(late)).toEqual([r2.peerId])
    // the links made before the relay went are still there
    expect(linkedTo(both, onlyFirst)).toBe(true)
  }, 60_000)
})
