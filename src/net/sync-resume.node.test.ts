/**
 * A sync session survives the link it started on being replaced (issue 45):
 * real libp2p nodes over TCP on loopback, each with the relinker's
 * stale-link rule (relink.ts). B, empty, syncs from A, which holds a few
 * thousand records, over a slow first link (a throttling TCP proxy); early
 * in the transfer B links to A again, directly, and the new link makes the
 * old one stale at both ends, which closes it under the session. The session
 * resumes on the new link, and every record arrives exactly once.
 */
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr'
import { createLibp2p, type Libp2p } from 'libp2p'
import type { Connection } from '@libp2p/interface'
import { noise } from '@libp2p/noise'
import { tcp } from '@libp2p/tcp'
import { yamux } from '@libp2p/yamux'
import { SYNC_PROTOCOL } from './constants'
import { silentLogger } from './log'
import { createRelinker } from './relink'
import { Syncer } from './sync'
import { MemoryStore, recordIdOf } from './testing/memory-store'
import type { SyncReport, Verdict } from './types'

/** a link this much older than a new one to the same peer is stale (STALE_LINK_AGE_MS, shorter) */
const STALE_AGE_MS = 300
const RECORDS = 3_000

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** the slow link forwards this many bytes each way per tick: ~800 kB/s, 2 s for the records */
const SLOW_BYTES_PER_TICK = 4_096
const SLOW_TICK_MS = 5

/** A store that counts how often each record arrives. */
class CountingStore extends MemoryStore {
  readonly arrivals = new Map<string, number>()
  override add(bytes: Uint8Array, from: string, expected?: (id: string) => boolean) {
    const id = recordIdOf(bytes)
    this.arrivals.set(id, (this.arrivals.get(id) ?? 0) + 1)
    return super.add(bytes, from, expected) as Promise<Verdict>
  }
}

/** A TCP proxy to `target` that forwards SLOW_BYTES_PER_TICK each way per tick; closes pass through. */
async function slowProxy(target: Multiaddr): Promise<Multiaddr> {
  const [, , , , port, , peer] = target.toString().split('/')
  const sockets: net.Socket[] = []
  const pipe = (from: net.Socket, to: net.Socket) => {
    let queue = Buffer.alloc(0)
    from.on('data', (data: Buffer) => void (queue = Buffer.concat([queue, data])))
    const timer = setInterval(() => {
      if (queue.length === 0 || to.destroyed) return
      to.write(queue.subarray(0, SLOW_BYTES_PER_TICK))
      queue = queue.subarray(SLOW_BYTES_PER_TICK)
    }, SLOW_TICK_MS)
    from.on('close', () => {
      clearInterval(timer)
      to.destroy()
    })
    from.on('error', () => {})
  }
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), '127.0.0.1')
    sockets.push(client, upstream)
    pipe(client, upstream)
    pipe(upstream, client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy()
    server.close()
  })
  const { port: proxyPort } = server.address() as net.AddressInfo
  return multiaddr(`/ip4/127.0.0.1/tcp/${proxyPort}/p2p/${peer}`)
}

async function peer(store: MemoryStore, reports: SyncReport[], listen: boolean) {
  const libp2p: Libp2p = await createLibp2p({
    addresses: { listen: listen ? ['/ip4/127.0.0.1/tcp/0'] : [] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
  })
  const newest = (remote: string): Connection | undefined =>
    libp2p
      .getConnections()
      .filter((c) => c.status === 'open' && c.remotePeer.toString() === remote)
      .sort((a, b) => b.timeline.open - a.timeline.open)[0]
  const syncer = new Syncer({
    room: 'resume',
    store,
    logger: silentLogger,
    signal: new AbortController().signal,
    onSession: (r) => void reports.push(r),
    linkTo: newest,
  })
  await libp2p.handle(SYNC_PROTOCOL, syncer.handle, { maxInboundStreams: 6 })
  const relinker = createRelinker({
    libp2p,
    isLink: () => true,
    logger: silentLogger,
    staleAgeMs: STALE_AGE_MS,
  })
  libp2p.addEventListener('connection:open', (evt) => relinker.linkOpened(evt.detail))
  cleanups.push(() => libp2p.stop())
  return { libp2p, syncer }
}

describe('a sync session whose link is replaced', () => {
  it('resumes on the new link and every record arrives once', async () => {
    const full = new MemoryStore()
    for (let i = 0; i < RECORDS; i++) full.put(new TextEncoder().encode(`record ${i} `.repeat(40)))
    const empty = new CountingStore()
    const aReports: SyncReport[] = []
    const bReports: SyncReport[] = []
    const a = await peer(full, aReports, true)
    const b = await peer(empty, bReports, false)

    const first = await b.libp2p.dial(await slowProxy(a.libp2p.getMultiaddrs()[0]!))
    const session = b.syncer.syncWith(first)
    // early on (and once old enough to be taken for stale), B links to A again
    const t0 = Date.now()
    while (empty.records.size < RECORDS / 10 || Date.now() - t0 < STALE_AGE_MS) {
      if (Date.now() - t0 > 20_000) throw new Error('the session did not get going')
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const second = await b.libp2p.dial(a.libp2p.getMultiaddrs()[0]!, { force: true })
    expect(second.id).not.toBe(first.id)

    const last = await session
    expect(first.status).not.toBe('open') // the relinker closed the stale link
    expect(last.error).toBeUndefined()
    expect(last.resumes).toBe(1)
    const cut = bReports[0]!
    expect(cut.error).toBeDefined()
    expect(cut.accepted).toBeGreaterThan(0)
    expect(cut.accepted).toBeLessThan(RECORDS)

    // everything arrived, each record once: no duplicate, nothing refused
    expect(empty.records.size).toBe(RECORDS)
    expect([...empty.arrivals.values()].every((n) => n === 1)).toBe(true)
    const mine = bReports.filter((r) => r.initiator)
    expect(mine.reduce((n, r) => n + r.accepted, 0)).toBe(RECORDS)
    expect(mine.reduce((n, r) => n + r.ignored + r.rejected, 0)).toBe(0)
  }, 60_000)
})
