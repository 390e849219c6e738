/**
 * What closeLink works around, on a real libp2p link (TCP, Noise, yamux):
 * a graceful close that cannot flush in time fails and leaves the connection
 * open; closeLink's abort closes it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createLibp2p, type Libp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { noise } from '@libp2p/noise'
import { yamux } from '@libp2p/yamux'
import type { Connection } from '@libp2p/interface'
import { closeLink } from './hang-up'

const PROTOCOL = '/murmuration-test/sink/1'
const running: Libp2p[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((n) => n.stop()))
})

async function node(): Promise<Libp2p> {
  const n = await createLibp2p({
    addresses: { listen: ['/ip4/127.0.0.1/tcp/0'] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
  })
  running.push(n)
  return n
}

/** A link whose one stream has more queued than the far end will ever read. */
async function cloggedLink(): Promise<{ a: Libp2p; conn: Connection }> {
  const [a, b] = await Promise.all([node(), node()])
  // b takes the stream and pauses it: yamux's window fills, a's queue stays
  await b.handle(PROTOCOL, (stream) => stream.pause())
  const conn = await a.dial(b.getMultiaddrs()[0]!)
  const stream = await conn.newStream(PROTOCOL)
  // send until the queue stops draining: b's window is full, a's queue holds the rest
  for (let i = 0; i < 64; i++) {
    if (stream.send(new Uint8Array(64 * 1024))) continue
    const drained = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 300)
      stream.addEventListener('drain', () => (clearTimeout(timer), resolve(true)), { once: true })
    })
    if (!drained) return { a, conn }
  }
  throw new Error('the link never clogged: b reads a paused stream')
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) return false
    await new Promise((r) => setTimeout(r, 20))
  }
  return true
}

describe('closing a link that cannot flush', () => {
  it('a bare close gives up and leaves it open; closeLink ends it', async () => {
    const bare = await cloggedLink()
    const failed = await bare.conn.close().then(
      () => false,
      () => true,
    )
    expect(failed).toBe(true)
    expect(bare.conn.status).toBe('open')
    expect(bare.a.getConnections()).toContain(bare.conn)

    const ours = await cloggedLink()
    closeLink(ours.conn)
    const gone = () => ours.conn.status !== 'open' && !ours.a.getConnections().includes(ours.conn)
    expect(await waitFor(gone, 5_000)).toBe(true)
  })
})
