/** Sync sessions over in-memory stream pairs: convergence, and hostile peers. */
import { describe, expect, it } from 'vitest'
import { lpStream, streamPair } from '@libp2p/utils'
import type { Connection, Stream } from '@libp2p/interface'
import { Syncer } from './sync'
import { MemoryStore, recordIdOf } from './testing/memory-store'
import type { NetLogger } from './log'
import type { SyncReport } from './types'
import {
  FrameType,
  digestIds,
  encodeEnd,
  encodeHello,
  encodeIdFrames,
  encodeRecord,
} from './sync-wire'

const enc = (s: string) => new TextEncoder().encode(s)
const conn = (peer: string) => ({ remotePeer: { toString: () => peer } }) as unknown as Connection

interface Side {
  syncer: Syncer
  reports: SyncReport[]
  strikes: string[]
  logs: string[]
}

function side(store: MemoryStore, opts: { room?: string; idleTimeoutMs?: number } = {}): Side {
  const reports: SyncReport[] = []
  const strikes: string[] = []
  const logs: string[] = []
  const push = (l: string) => (m: string) => void logs.push(`${l} ${m}`)
  const logger: NetLogger = {
    debug: push('debug'),
    info: push('info'),
    warn: push('warn'),
    error: push('error'),
  }
  const syncer = new Syncer({
    room: opts.room ?? 'r',
    store,
    logger,
    signal: new AbortController().signal,
    onStrike: (p, reason) => void strikes.push(`${p}: ${reason}`),
    onSession: (r) => void reports.push(r),
    idleTimeoutMs: opts.idleTimeoutMs ?? 2_000,
    maxRejects: 2,
  })
  return { syncer, reports, strikes, logs }
}

async function until(cond: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** Runs `b` as the responder of a session the raw `evil` function drives. */
async function against(
  b: Side,
  evil: (lp: ReturnType<typeof lpStream<Stream>>, stream: Stream) => Promise<void>,
): Promise<SyncReport> {
  const [outbound, inbound] = await streamPair()
  b.syncer.handle(inbound, conn('evil'))
  await evil(lpStream(outbound), outbound).catch(() => {})
  await until(() => b.reports.length > 0)
  return b.reports[0] as SyncReport
}

describe('sync sessions', () => {
  it('make two stores equal, each record crossing once', async () => {
    const sa = new MemoryStore()
    const sb = new MemoryStore()
    for (let i = 0; i < 500; i++) sa.put(enc(`a${i}`))
    for (let i = 0; i < 100; i++) sb.put(enc(`b${i}`))
    for (let i = 0; i < 50; i++) {
      sa.put(enc(`both${i}`))
      sb.put(enc(`both${i}`))
    }
    const a = side(sa)
    const b = side(sb)
    const [outbound, inbound] = await streamPair()
    b.syncer.handle(inbound, conn('a'))
    void a.syncer.session(outbound, 'b', true)
    await until(() => a.reports.length === 1 && b.reports.length === 1)
    expect(sa.records.size).toBe(650)
    expect([...sb.records.keys()].sort()).toEqual([...sa.records.keys()].sort())
    expect(a.reports[0]).toMatchObject({ wanted: 100, accepted: 100, sent: 500, missing: 0 })
    expect(b.reports[0]).toMatchObject({ wanted: 500, accepted: 500, sent: 100, missing: 0 })
    expect(a.strikes).toEqual([])
  })

  it('drops and strikes a peer that sends a junk frame', async () => {
    const b = side(new MemoryStore())
    const rep = await against(b, async (lp) => {
      await lp.write(Uint8Array.of(0x42, 0, 0))
    })
    expect(rep.error).toMatch(/ProtocolViolationError/)
    expect(b.strikes.length).toBe(1)
    expect(b.logs.some((l) => l.startsWith('warn sync: peer broke the protocol'))).toBe(true)
  })

  it('times out a peer that stalls, without striking it', async () => {
    const b = side(new MemoryStore(), { idleTimeoutMs: 200 })
    const t0 = Date.now()
    const rep = await against(b, async (lp) => {
      await lp.write(encodeHello({ room: 'r', count: 1, digest: digestIds(['aa']) }))
      // …and then nothing
    })
    expect(rep.error).toMatch(/NetTimeoutError/)
    expect(Date.now() - t0).toBeLessThan(2_000)
    expect(b.strikes).toEqual([])
  })

  it('refuses another room', async () => {
    const store = new MemoryStore()
    store.put(enc('mine'))
    const b = side(store)
    const rep = await against(b, async (lp) => {
      await lp.write(encodeHello({ room: 'other', count: 0, digest: digestIds([]) }))
    })
    expect(rep.error).toMatch(/room/)
    expect(b.logs.some((l) => l.startsWith('warn sync: room mismatch'))).toBe(true)
    expect(b.strikes).toEqual([])
  })

  it('rejects junk records, strikes the sender, and aborts after too many', async () => {
    const store = new MemoryStore()
    const b = side(store)
    const junk = [1, 2, 3, 4].map((i) => Uint8Array.of(0xff, i))
    const good = enc('good')
    const ids = [good, ...junk].map(recordIdOf)
    const rep = await against(b, async (lp) => {
      await lp.write(encodeHello({ room: 'r', count: ids.length, digest: digestIds(ids) }))
      await lp.read() // their HELLO
      for (const f of encodeIdFrames(FrameType.IDS, ids, 100)) await lp.write(f)
      await lp.write(encodeEnd(FrameType.IDS_END))
      await lp.write(encodeEnd(FrameType.WANT_END))
      // wait for their WANT_END, then send what they asked for
      for (;;) {
        const f = await lp.read()
        if (f.get(0) === FrameType.WANT_END) break
      }
      await lp.write(encodeRecord(good))
      for (const j of junk) await lp.write(encodeRecord(j))
      await lp.write(encodeEnd(FrameType.RECORDS_END))
    })
    expect(rep.accepted).toBe(1)
    expect(rep.rejected).toBe(3) // the third reject is over maxRejects (2): aborted there
    expect(rep.error).toMatch(/too many rejected/)
    expect(store.records.size).toBe(1)
    expect(store.get(recordIdOf(good))).toEqual(good)
    expect(b.strikes.length).toBe(1)
    expect(b.logs.filter((l) => l.startsWith('warn sync: record rejected')).length).toBe(3)
  })

  it('treats records nobody asked for as a violation', async () => {
    const b = side(new MemoryStore())
    const rep = await against(b, async (lp) => {
      await lp.write(encodeHello({ room: 'r', count: 0, digest: digestIds(['x0']) }))
      await lp.read()
      await lp.write(encodeEnd(FrameType.IDS_END))
      await lp.write(encodeEnd(FrameType.WANT_END))
      await lp.write(encodeRecord(enc('unrequested')))
    })
    expect(rep.error).toMatch(/did not ask for/)
    expect(b.strikes.length).toBe(1)
  })
})
