/**
 * The relay's per-address caps, each hit on purpose with small limits (the
 * defaults need hundreds of peers: limits-flood.node.test.ts floods a relay
 * process that has them). All peers here come from 127.0.0.1.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { lpStream } from '@libp2p/utils'
import type { Libp2p } from '@libp2p/interface'
import { multiaddr } from '@multiformats/multiaddr'
import { reservingClient } from './test-client'
import { createRelay, type Relay, type RelayLimits } from './relay'
import { DISCOVER_PROTOCOL } from '../src/net/constants'
import { decodePeers, encodeJoin } from '../src/net/discovery-wire'
import { silentLogger } from '../src/net/log'

const running: Array<{ stop(): Promise<void> | void }> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((n) => n.stop()))
})

/** A relay with `limits`; every client here comes from 127.0.0.1, so it is capped like any host. */
async function relayWith(limits: Partial<RelayLimits>): Promise<Relay> {
  const privateKey = await generateKeyPair('Ed25519')
  const relay = await createRelay({
    port: 0,
    privateKey,
    logger: silentLogger,
    limits: { uncappedAddresses: [], ...limits },
  })
  running.push(relay)
  return relay
}

async function client(): Promise<Libp2p> {
  const node = await reservingClient()
  running.push(node)
  return node
}

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 25))
  }
}

const at = (relay: Relay) => multiaddr(relay.multiaddrs[0] as string)

describe('relay limits per address', () => {
  it('refuses connections past the cap from one address, and logs it as one count', async () => {
    const relay = await relayWith({ connectionsPerAddress: 2 })
    const nodes = await Promise.all([client(), client(), client(), client()])
    await nodes[0]!.dial(at(relay))
    await nodes[1]!.dial(at(relay))
    await expect(nodes[2]!.dial(at(relay))).rejects.toThrow()
    await expect(nodes[3]!.dial(at(relay))).rejects.toThrow()
    expect(relay.refusals().get('connection|127.0.0.1')).toBe(2)
    // one leaves: room for another
    await nodes[0]!.stop()
    await waitFor(() => relay.libp2p.getConnections().length === 1)
    await nodes[2]!.dial(at(relay))
  })

  it('refuses reservations past the cap from one address; a disconnect frees one', async () => {
    const relay = await relayWith({ reservationsPerAddress: 2 })
    const nodes = await Promise.all([client(), client(), client()])
    for (const n of nodes.slice(0, 2)) await n.dial(at(relay))
    await waitFor(() => relay.reservations().length === 2)
    await nodes[2]!.dial(at(relay))
    await waitFor(() => relay.refusals().get('reservation|127.0.0.1') === 1)
    expect(relay.reservations()).not.toContain(nodes[2]!.peerId.toString())

    // one leaves: its reservation no longer counts, and a newcomer gets one
    await nodes[0]!.stop()
    await waitFor(() => relay.libp2p.getConnections(nodes[0]!.peerId).length === 0)
    const late = await client()
    await late.dial(at(relay))
    await waitFor(() => relay.reservations().includes(late.peerId.toString()))
  })

  it('caps rooms, and discovery requests per address with a token bucket', async () => {
    const relay = await relayWith({
      maxRooms: 1,
      discoverBurstPerAddress: 4,
      discoverRefillPerSPerAddress: 0.01,
    })
    const node = await client()
    await node.dial(at(relay))
    const join = async (room: string) => {
      const stream = await node.dialProtocol(at(relay), DISCOVER_PROTOCOL)
      const lp = lpStream(stream)
      await lp.write(encodeJoin({ room }))
      try {
        return decodePeers((await lp.read()).subarray()).room
      } finally {
        await stream.close().catch(() => {})
      }
    }
    expect(await join('first')).toBe('first')
    await waitFor(() => relay.rooms().size === 0)
    expect(await join('second')).toBe('second') // the first is gone: room for another
    // one room open at a time: a second, while the first stays open, is refused
    const held = await node.dialProtocol(at(relay), DISCOVER_PROTOCOL)
    await lpStream(held).write(encodeJoin({ room: 'held' }))
    await waitFor(() => relay.rooms().has('held'))
    await expect(join('other')).rejects.toThrow()
    expect(relay.refusals().get('room|127.0.0.1')).toBe(1)
    // that was the 4th request of a burst of 4 (and next to no refill): the 5th is refused
    expect(relay.refusals().get('discovery request|127.0.0.1')).toBeUndefined()
    await expect(join('held')).rejects.toThrow()
    expect(relay.refusals().get('discovery request|127.0.0.1')).toBe(1)
  })

  it('by default caps no one on 127.0.0.1: the app server and a reverse proxy connect from there for everyone', async () => {
    const privateKey = await generateKeyPair('Ed25519')
    const relay = await createRelay({
      port: 0,
      privateKey,
      logger: silentLogger,
      limits: { connectionsPerAddress: 1, reservationsPerAddress: 1 },
    })
    running.push(relay)
    const nodes = await Promise.all([client(), client(), client()])
    for (const n of nodes) await n.dial(at(relay))
    await waitFor(() => relay.reservations().length === 3)
    expect(relay.refusals().size).toBe(0)
  })
})
