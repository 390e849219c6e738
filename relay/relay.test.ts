import { spawn } from 'node:child_process'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { lpStream } from '@libp2p/utils'
import type { Libp2p } from '@libp2p/interface'
import { multiaddr } from '@multiformats/multiaddr'
import { reservingClient } from './test-client'
import { createRelay, RELAY_LINK_DATA_BYTES, RELAY_LINK_DURATION_MS, type Relay } from './relay'
import { DISCOVER_PROTOCOL } from '../src/net/constants'
import { decodePeers, encodeJoin } from '../src/net/discovery-wire'
import { silentLogger } from '../src/net/log'
import { fetchRelayInfo, pickRelayAddrs } from '../src/net/relay-info'
import { iceServersSource } from '../src/net/ice-config'
import { iceFromOptions } from './ice'
import { RELAY_ENTRY } from '../scripts/build-cli.mjs'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'murmuration-relay-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const running: Array<{ stop(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((n) => n.stop()))
})

async function startRelay(keyFile = join(dir, `k-${Math.random()}.key`)): Promise<Relay> {
  const relay = await createRelay({ port: 0, keyFile, logger: silentLogger })
  running.push(relay)
  return relay
}

/** A bare client: WebSockets to the relay, listening on /p2p-circuit (so it reserves). */
async function client(): Promise<Libp2p> {
  const node = await reservingClient()
  running.push({ stop: async () => node.stop() })
  return node
}

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 25))
  }
}

async function reserve(node: Libp2p, relay: Relay): Promise<void> {
  await node.dial(multiaddr(relay.multiaddrs[0] as string))
  const marker = `/p2p/${relay.peerId}/p2p-circuit`
  await waitFor(() => node.getMultiaddrs().some((ma) => ma.toString().includes(marker)))
}

describe('relay', () => {
  it('keeps its PeerId across a restart (key file created on first run)', async () => {
    const keyFile = join(dir, 'nested', 'relay.key')
    const first = await createRelay({ port: 0, keyFile, logger: silentLogger })
    const id = first.peerId
    await first.stop()
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600)
    const second = await startRelay(keyFile)
    expect(second.peerId).toBe(id)
    const other = await startRelay(join(dir, 'other.key'))
    expect(other.peerId).not.toBe(id)
  })

  it('listens on 127.0.0.1 by default and prints /p2p/<id> addresses', async () => {
    const relay = await startRelay()
    expect(relay.multiaddrs.length).toBeGreaterThan(0)
    for (const ma of relay.multiaddrs) {
      expect(ma).toMatch(/^\/ip4\/127\.0\.0\.1\/tcp\/\d+\/ws\/p2p\//)
      expect(ma.endsWith(`/p2p/${relay.peerId}`)).toBe(true)
    }
  })

  it('serves /relay.json with open CORS', async () => {
    const relay = await startRelay()
    const res = await fetch(relay.infoUrl)
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(await res.json()).toEqual({ peerId: relay.peerId, multiaddrs: relay.multiaddrs })
    const missing = await fetch(relay.infoUrl.replace('relay.json', 'nope'))
    expect(missing.status).toBe(404)

    // what a web app does with it
    const info = await fetchRelayInfo(relay.infoUrl)
    expect(info.peerId).toBe(relay.peerId)
    expect(pickRelayAddrs(info, 'localhost')[0]).toBe(relay.multiaddrs[0])
    await expect(fetchRelayInfo(relay.infoUrl.replace('relay.json', 'nope'))).rejects.toThrow(
      /cannot read relay info/,
    )
  })

  it('serves /ice.json beside it: none by default, fresh TURN credentials with --turn', async () => {
    const plain = await startRelay()
    const none = await fetch(plain.infoUrl.replace('relay.json', 'ice.json'))
    expect(await none.json()).toEqual({ iceServers: [], expiresAt: null })
    const keyFile = join(dir, 'ice-relay.key')
    const relay = await createRelay({
      port: 0,
      keyFile,
      logger: silentLogger,
      ice: iceFromOptions(['turn:203.0.113.1:3478'], 'secret', {}),
    })
    try {
      const source = iceServersSource({ url: relay.infoUrl.replace('relay.json', 'ice.json') })
      const config = await source()
      expect(config.iceServers).toMatchObject([
        { urls: ['stun:203.0.113.1:3478'] },
        { urls: ['turn:203.0.113.1:3478'], username: expect.stringMatching(/^\d+:murmuration$/) },
      ])
    } finally {
      await relay.stop()
    }
  })

  it('orders relay addresses for the page host: same host first', () => {
    const info = {
      peerId: 'x',
      multiaddrs: ['/ip4/10.0.0.5/tcp/9090/ws/p2p/x', '/ip4/127.0.0.1/tcp/9090/ws/p2p/x'],
    }
    expect(pickRelayAddrs(info, '127.0.0.1')[0]).toBe('/ip4/127.0.0.1/tcp/9090/ws/p2p/x')
    expect(pickRelayAddrs(info, '10.0.0.5')[0]).toBe('/ip4/10.0.0.5/tcp/9090/ws/p2p/x')
    expect(pickRelayAddrs(info, 'example.lan')).toEqual(info.multiaddrs)
  })

  it('accepts more than the default 15 reservations, each with the swarm-sized link limits', async () => {
    const relay = await startRelay()
    const clients = await Promise.all(Array.from({ length: 17 }, () => client()))
    await Promise.all(clients.map((c) => reserve(c, relay)))
    expect(relay.reservations().length).toBe(17)
    const svc = (
      relay.libp2p as unknown as {
        services: {
          relay: { reservations: Map<unknown, { limit?: { duration?: number; data?: bigint } }> }
        }
      }
    ).services.relay
    for (const r of svc.reservations.values()) {
      // the relay enforces the duration in ms (AbortSignal.timeout)
      expect(r.limit?.duration).toBe(RELAY_LINK_DURATION_MS)
      expect(r.limit?.data).toBe(RELAY_LINK_DATA_BYTES)
    }
  })

  it('answers discovery with the reserved peers of the same room only, and updates members', async () => {
    const relay = await startRelay()
    const [a, b, c] = await Promise.all([client(), client(), client()])
    await Promise.all([a, b, c].map((n) => reserve(n as Libp2p, relay)))

    const join = async (node: Libp2p, room: string) => {
      const stream = await node.dialProtocol(
        multiaddr(relay.multiaddrs[0] as string),
        DISCOVER_PROTOCOL,
      )
      const lp = lpStream(stream)
      await lp.write(encodeJoin({ room }))
      return { stream, next: async () => decodePeers((await lp.read()).subarray()) }
    }
    const ja = await join(a as Libp2p, 'alpha')
    expect((await ja.next()).peers).toEqual([])
    const jc = await join(c as Libp2p, 'beta')
    expect(await jc.next()).toMatchObject({ room: 'beta', peers: [] })
    const jb = await join(b as Libp2p, 'alpha')
    expect((await jb.next()).peers).toEqual([a?.peerId.toString()])
    expect(await ja.next()).toMatchObject({ room: 'alpha', peers: [b?.peerId.toString()] })
    expect(relay.rooms().get('alpha')?.sort()).toEqual(
      [a?.peerId.toString(), b?.peerId.toString()].sort(),
    )

    // b leaves: a is told
    await jb.stream.close()
    expect((await ja.next()).peers).toEqual([])
  })

  it('drops a junk discovery request without harm to others', async () => {
    const relay = await startRelay()
    const [bad, good] = await Promise.all([client(), client()])
    await Promise.all([bad, good].map((n) => reserve(n as Libp2p, relay)))
    const stream = await (bad as Libp2p).dialProtocol(
      multiaddr(relay.multiaddrs[0] as string),
      DISCOVER_PROTOCOL,
    )
    const lp = lpStream(stream)
    await lp.write(new TextEncoder().encode('{"room": 42}'))
    await expect(lp.read()).rejects.toThrow()
    expect(relay.rooms().size).toBe(0)

    const s2 = await (good as Libp2p).dialProtocol(
      multiaddr(relay.multiaddrs[0] as string),
      DISCOVER_PROTOCOL,
    )
    const lp2 = lpStream(s2)
    await lp2.write(encodeJoin({ room: 'r' }))
    expect(decodePeers((await lp2.read()).subarray()).peers).toEqual([])
  })

  it('CLI: prints its addresses and /relay.json URL, keeps its key, and exits cleanly on SIGTERM', async () => {
    const keyFile = join(dir, 'cli.key')
    const run = async () => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          './scripts/node-preload.mjs',
          RELAY_ENTRY,
          '--port',
          '0',
          '--key-file',
          keyFile,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      )
      let out = ''
      child.stdout.on('data', (d: Buffer) => (out += d.toString()))
      await waitFor(() => out.includes('RELAY_READY'), 20_000)
      const code = new Promise<number | null>((res) => child.once('exit', (c) => res(c)))
      child.kill('SIGTERM')
      const exitCode = await code
      return { out, code: exitCode }
    }
    const first = await run()
    expect(first.code).toBe(0)
    const id = /RELAY_PEER_ID (\S+)/.exec(first.out)?.[1]
    expect(id).toBeDefined()
    expect(first.out).toMatch(
      new RegExp(`RELAY_MULTIADDR /ip4/127\\.0\\.0\\.1/tcp/\\d+/ws/p2p/${id}`),
    )
    expect(first.out).toMatch(/RELAY_INFO_URL http:\/\/127\.0\.0\.1:\d+\/relay\.json/)
    expect(first.out).toContain('SIGTERM, stopping')
    const second = await run()
    expect(/RELAY_PEER_ID (\S+)/.exec(second.out)?.[1]).toBe(id)
  })
})
