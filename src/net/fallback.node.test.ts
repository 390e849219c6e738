/**
 * A peer that cannot make direct links takes part through the relay
 * (fallback.ts), against a real relay, all on loopback: a Node peer without
 * WebRTC plays a browser without RTCPeerConnection. Its neighbours reach it
 * over circuit relay v2 with the relay's fallback limits, gossip and sync
 * run over those links, and the peers that can link directly still do.
 * Where the relay refuses (relaying off, its limits reached), every peer
 * says so: the refused one about itself, the others about it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { createRelay, DEFAULT_RELAY_LIMITS, type Relay, type RelayLimits } from '../../relay/relay'
import { createSwarmNode, type NodeSwarmNodeInit } from './node.node.js'
import { silentLogger } from './log'
import { MemoryStore, recordIdOf, testValidate } from './testing/memory-store'
import { FALLBACK_LINK_BYTES } from '../../relay/fallback'
import type { SwarmNode } from './types'

const running: Array<{ stop(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((n) => n.stop()))
})

async function relay(limits: Partial<RelayLimits> = {}): Promise<Relay> {
  const r = await createRelay({
    port: 0,
    privateKey: await generateKeyPair('Ed25519'),
    logger: silentLogger,
    limits,
  })
  running.push(r)
  return r
}

async function peer(r: Relay, extra: Partial<NodeSwarmNodeInit> = {}) {
  const store = new MemoryStore()
  const node = await createSwarmNode({
    relays: r.multiaddrs,
    room: 'fallback',
    validate: testValidate,
    store,
    logger: silentLogger,
    rtcBindAddress: '127.0.0.1',
    directLinks: false,
    ...extra,
  })
  running.push(node)
  return { node, store }
}

async function waitFor(cond: () => boolean, ms: number, what: () => string): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

const kindOf = (a: SwarmNode, b: SwarmNode) =>
  a.connections().peers.find((p) => p.peerId === b.peerId)?.kind
const enc = (s: string) => new TextEncoder().encode(s)

describe('a peer without WebRTC, through the relay', { timeout: 90_000 }, () => {
  it('links through the relay with its limits, gossips and syncs; the others still link directly', async () => {
    const r = await relay()
    const a = await peer(r)
    const b = await peer(r)
    // a record the newcomer must catch up on by sync, not gossip
    await a.store.add(enc('before the newcomer'), 'test')
    const f = await peer(r, { webrtc: false })

    const state = () =>
      `f: ${JSON.stringify(f.node.connections())}; a: ${JSON.stringify(a.node.connections())}`
    await waitFor(
      () =>
        kindOf(f.node, a.node) === 'via-relay' &&
        kindOf(f.node, b.node) === 'via-relay' &&
        kindOf(a.node, f.node) === 'via-relay' &&
        kindOf(a.node, b.node) === 'direct-webrtc',
      30_000,
      state,
    )
    expect(f.node.connections().cannotLink).toEqual({ cause: 'no-webrtc', relaying: 'granted' })
    expect(f.node.connections().viaRelay).toBe(2)
    expect(a.node.connections().unreachable).toEqual([])
    // the relay gave the links to f the fallback's limits, not a signalling link's 1 MiB
    expect(r.reservationLimit(f.node.peerId)?.data).toBe(FALLBACK_LINK_BYTES)
    expect(r.reservationLimit(a.node.peerId)?.data).not.toBe(FALLBACK_LINK_BYTES)

    // sync over the relayed link brought the older record
    await waitFor(
      () => f.store.get(recordIdOf(enc('before the newcomer'))) !== undefined,
      15_000,
      () => 'sync to f',
    )

    // gossip both ways over the relayed links
    const atA: string[] = []
    const atF: string[] = []
    a.node.subscribe('t', (bytes) => atA.push(new TextDecoder().decode(bytes)))
    b.node.subscribe('t', () => {})
    f.node.subscribe('t', (bytes) => atF.push(new TextDecoder().decode(bytes)))
    let n = 0
    await waitFor(
      () => {
        void f.node.publish('t', enc(`from f ${n}`))
        void b.node.publish('t', enc(`from b ${n++}`))
        return atA.some((m) => m.startsWith('from f')) && atF.some((m) => m.startsWith('from b'))
      },
      15_000,
      () => `gossip: a heard ${atA.length}, f heard ${atF.length}`,
    )
  })

  it('relaying off: the refused peer and the others say so, and nobody dials it', async () => {
    const r = await relay({ fallback: { ...DEFAULT_RELAY_LIMITS.fallback, enabled: false } })
    const a = await peer(r)
    const f = await peer(r, { webrtc: false })
    await waitFor(
      () =>
        f.node.connections().cannotLink?.relaying === 'off' &&
        a.node.connections().unreachable.length === 1,
      20_000,
      () => JSON.stringify([f.node.connections(), a.node.connections()]),
    )
    expect(a.node.connections().unreachable).toEqual([
      { peerId: f.node.peerId, cause: 'no-webrtc', relaying: 'off' },
    ])
    expect(f.node.connections().known).toBe(1)
    // a few ticks later still no link between them
    await new Promise((res) => setTimeout(res, 2_000))
    expect(kindOf(a.node, f.node)).toBeUndefined()
    expect(r.refusals().size).toBeGreaterThan(0)
  })

  it('at its limit of relayed peers, the relay refuses the next one: "full"', async () => {
    const r = await relay({ fallback: { ...DEFAULT_RELAY_LIMITS.fallback, maxPeers: 1 } })
    const a = await peer(r)
    const f1 = await peer(r, { webrtc: false })
    await waitFor(
      () => kindOf(a.node, f1.node) === 'via-relay',
      20_000,
      () => 'f1 relayed',
    )
    const f2 = await peer(r, { webrtc: false })
    await waitFor(
      () => f2.node.connections().cannotLink?.relaying === 'full',
      20_000,
      () => JSON.stringify(f2.node.connections()),
    )
    await waitFor(
      () => a.node.connections().unreachable.some((p) => p.peerId === f2.node.peerId),
      10_000,
      () => JSON.stringify(a.node.connections()),
    )
    expect(kindOf(f1.node, a.node)).toBe('via-relay')
  })
})
