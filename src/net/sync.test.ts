/** Sync sessions over in-memory stream pairs: convergence, and hostile peers. */
import { describe, expect, it } from 'vitest'
import { lpStream, streamPair } from '@libp2p/utils'
import type { Connection, Stream } from '@libp2p/interface'
import { Syncer } from './sync'
import { MemoryStore, recordIdOf } from './testing/memory-store'
import type { NetLogger } from './log'
import type { SyncReport } from './types'
import { FrameType, encodeEnd, encodeHello, encodeMessage, encodeRecord } from './sync-wire'
import { IdSet, type ReconcileParams } from '../protocol/reconcile'
import { SYNC_MAX_SESSIONS_PER_PEER, SYNC_PARAMS } from './sync'

const enc = (s: string) => new TextEncoder().encode(s)
const conn = (peer: string) => ({ remotePeer: { toString: () => peer } }) as unknown as Connection

interface Side {
  syncer: Syncer
  reports: SyncReport[]
  strikes: string[]
  logs: string[]
}

function side(
  store: MemoryStore,
  opts: { room?: string; idleTimeoutMs?: number; params?: ReconcileParams } = {},
): Side {
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
    ...(opts.params ? { params: opts.params } : {}),
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

type Lp = ReturnType<typeof lpStream<Stream>>
const FP0 = new IdSet([]).fingerprintAll()

/** Reads frames until one of type `type`; returns the frames before it. */
async function readUntil(lp: Lp, type: number): Promise<Uint8Array[]> {
  const frames: Uint8Array[] = []
  for (;;) {
    const f = (await lp.read()).subarray()
    if (f[0] === type) return frames
    frames.push(f)
  }
}

/**
 * An evil initiator that claims to hold `ids` (one idlist for everything),
 * wants nothing, and answers the WANT with `records`.
 */
async function offerThenSend(lp: Lp, ids: string[], records: Uint8Array[]): Promise<void> {
  await lp.write(encodeHello({ room: 'r', count: ids.length, fingerprint: FP0 }))
  await lp.read() // their HELLO
  const idlist = [{ upper: null, mode: 'idlist' as const, ids: [...ids].sort(), gone: [] }]
  for (const f of encodeMessage(idlist, 60_000)) await lp.write(f)
  await readUntil(lp, FrameType.ROUND_END) // their answer
  await lp.write(encodeEnd(FrameType.WANT_END))
  await readUntil(lp, FrameType.WANT_END)
  for (const r of records) await lp.write(encodeRecord(r))
  await lp.write(encodeEnd(FrameType.RECORDS_END))
}

async function run(sa: MemoryStore, sb: MemoryStore, params?: ReconcileParams) {
  const a = side(sa, params ? { params } : {})
  const b = side(sb, params ? { params } : {})
  const [outbound, inbound] = await streamPair()
  b.syncer.handle(inbound, conn('a'))
  void a.syncer.session(outbound, 'b', true)
  await until(() => a.reports.length === 1 && b.reports.length === 1)
  return { a: a.reports[0] as SyncReport, b: b.reports[0] as SyncReport, sa: a, sb: b }
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
    const { a, b, sa: A } = await run(sa, sb)
    expect(sa.records.size).toBe(650)
    expect([...sb.records.keys()].sort()).toEqual([...sa.records.keys()].sort())
    expect(a).toMatchObject({ wanted: 100, accepted: 100, sent: 500, missing: 0, deferred: 0 })
    expect(b).toMatchObject({ wanted: 500, accepted: 500, sent: 100, missing: 0 })
    expect(a.bytesOut).toBe(b.bytesIn)
    expect(A.strikes).toEqual([])
  })

  it('stops at HELLO when the sets are equal', async () => {
    const sa = new MemoryStore()
    const sb = new MemoryStore()
    for (let i = 0; i < 300; i++) {
      sa.put(enc(`x${i}`))
      sb.put(enc(`x${i}`))
    }
    const { a } = await run(sa, sb)
    expect(a).toMatchObject({ inSync: true, rounds: 0, sent: 0, accepted: 0 })
    expect(a.bytesOut).toBeLessThan(40)
  })

  it('reconciles a big set that differs by a few records in a few kB', async () => {
    const sa = new MemoryStore()
    const sb = new MemoryStore()
    for (let i = 0; i < 20_000; i++) {
      const r = enc(`common ${i}`)
      sa.put(r)
      sb.put(r)
    }
    sa.put(enc('only in a'))
    sb.put(enc('only in b'))
    const { a, b } = await run(sa, sb)
    expect(a).toMatchObject({ accepted: 1, sent: 1, missing: 0 })
    expect(b).toMatchObject({ accepted: 1, sent: 1, missing: 0 })
    // sending every id would be 20,000 × 33 bytes = 660 kB each way
    expect(a.bytesOut + a.bytesIn).toBeLessThan(20_000)
  })

  it('does not fetch again what a peer archived, and never offers it', async () => {
    const sa = new MemoryStore()
    const sb = new MemoryStore()
    for (let i = 0; i < 200; i++) {
      const r = enc(`r${i}`)
      sb.put(r)
      if (i < 100) sa.put(r)
      else sa.archived.add(recordIdOf(r))
    }
    sa.put(enc('new in a'))
    const { a, b } = await run(sa, sb)
    expect(a).toMatchObject({ wanted: 0, accepted: 0, sent: 1 })
    expect(b).toMatchObject({ wanted: 1, accepted: 1, sent: 0 })
    expect(sa.records.size).toBe(101)
  })

  it('leaves what is over the per-session budget for the next session', async () => {
    const sa = new MemoryStore()
    const sb = new MemoryStore()
    for (let i = 0; i < 120; i++) sa.put(enc(`r${i}`))
    const params = { ...SYNC_PARAMS, maxHave: 50 }
    const first = await run(sa, sb, params)
    expect(first.b).toMatchObject({ accepted: 50, missing: 0 })
    expect(first.b.deferred + first.a.deferred).toBeGreaterThan(0)
    await run(sa, sb, params)
    const third = await run(sa, sb, params)
    expect(third.b).toMatchObject({ accepted: 20, deferred: 0 })
    expect(sb.records.size).toBe(120)
  })

  it('answers a peer that announces a million records instead of striking it', async () => {
    const store = new MemoryStore()
    store.put(enc('mine'))
    const b = side(store)
    const rep = await against(b, async (lp) => {
      await lp.write(encodeHello({ room: 'r', count: 1_000_000, fingerprint: FP0 }))
      await lp.read()
      for (const f of encodeMessage([{ upper: null, mode: 'skip' }], 1000)) await lp.write(f)
      await lp.write(encodeEnd(FrameType.WANT_END))
      await readUntil(lp, FrameType.WANT_END)
      await lp.write(encodeEnd(FrameType.RECORDS_END))
    })
    expect(rep.error).toBeUndefined()
    expect(b.strikes).toEqual([])
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
      await lp.write(encodeHello({ room: 'r', count: 1, fingerprint: new Uint8Array(16) }))
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
      await lp.write(encodeHello({ room: 'other', count: 0, fingerprint: FP0 }))
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
    const rep = await against(b, (lp) => offerThenSend(lp, ids, [good, ...junk]))
    expect(rep.accepted).toBe(1)
    // over maxRejects (2): aborted once the batch holding the third reject is checked
    expect(rep.rejected).toBeGreaterThan(2)
    expect(rep.error).toMatch(/too many rejected/)
    expect(store.records.size).toBe(1)
    expect(store.get(recordIdOf(good))).toEqual(good)
    expect(b.strikes.length).toBe(1)
  })

  it('refuses a record nobody asked for, even in place of one that was', async () => {
    const store = new MemoryStore()
    const b = side(store)
    const offered = enc('offered')
    const swapped = enc('never offered')
    const rep = await against(b, (lp) => offerThenSend(lp, [recordIdOf(offered)], [swapped]))
    expect(rep).toMatchObject({ wanted: 1, accepted: 0, rejected: 1, missing: 1 })
    expect(store.records.size).toBe(0)
    expect(b.strikes.length).toBe(1)
  })

  it('strikes a peer that asks for ids it was not offered', async () => {
    const store = new MemoryStore()
    const secret = enc('held')
    store.put(secret)
    const b = side(store)
    const rep = await against(b, async (lp) => {
      // says it holds exactly our record's id: nothing is offered to it
      const ids = [recordIdOf(secret)]
      await lp.write(encodeHello({ room: 'r', count: 1, fingerprint: FP0 }))
      await lp.read()
      const m = [{ upper: null, mode: 'idlist' as const, ids, gone: [] }]
      for (const f of encodeMessage(m, 1000)) await lp.write(f)
      await readUntil(lp, FrameType.ROUND_END)
      const { encodeWantFrames } = await import('./sync-wire')
      for (const f of encodeWantFrames(ids, 10)) await lp.write(f)
      await lp.write(encodeEnd(FrameType.WANT_END))
    })
    expect(rep.error).toMatch(/did not offer/)
    expect(rep.sent).toBe(0)
    expect(b.strikes.length).toBe(1)
  })

  it('runs up to SYNC_MAX_SESSIONS_PER_PEER sessions with one peer at once, and refuses one more', async () => {
    const b = side(new MemoryStore(), { idleTimeoutMs: 1_000 })
    const inbound: Stream[] = []
    for (let i = 0; i <= SYNC_MAX_SESSIONS_PER_PEER; i++) {
      const [, theirs] = await streamPair()
      inbound.push(theirs)
      b.syncer.handle(theirs, conn('busy'))
    }
    // the six wait for the peer's HELLO; the seventh was reset at once, with no strike
    expect(inbound.slice(0, -1).every((s) => s.status === 'open')).toBe(true)
    expect(inbound.at(-1)!.status).not.toBe('open')
    expect(b.logs.some((l) => l.includes('refused a session'))).toBe(true)
    expect(b.strikes).toEqual([])
    // another peer is not counted with this one
    const [, other] = await streamPair()
    b.syncer.handle(other, conn('other'))
    expect(other.status).toBe('open')
    // once the six are over (idle), the peer may open sessions again
    await until(() => b.reports.length >= SYNC_MAX_SESSIONS_PER_PEER + 1)
    const [, again] = await streamPair()
    b.syncer.handle(again, conn('busy'))
    expect(again.status).toBe('open')
  })
})
