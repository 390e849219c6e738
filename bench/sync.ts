/**
 * `npm run bench:sync`: a late join by anti-entropy sync, measured.
 *
 * For each size N, a peer holding N signed plan records and a peer holding
 * none run the real sync (src/net/sync.ts: reconciliation, WANT, records,
 * each record verified and added to a real PlanStore) over an in-memory
 * stream pair, session after session as the swarm does, until the joiner
 * holds everything. Then a "rejoin": the joiner misses 1% of the records
 * (a tab reloaded after a short absence) and syncs again.
 *
 * Printed per size: wall time, sessions, reconciliation rounds, bytes on
 * the wire both ways (frames with their length prefixes) against the
 * encoded size of the set (the sum of the records' signed bytes). No
 * network latency is simulated: on a LAN add one round trip per round.
 * The last line is JSON.
 */
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { streamPair } from '@libp2p/utils'
import { Syncer } from '../src/net/sync'
import type { NetLogger } from '../src/net/log'
import type { SyncReport } from '../src/net/types'
import { memoryPersistence } from '../src/runtime/persist'
import { PlanStore } from '../src/runtime/store'
import { sharedVerifyPool } from '../src/protocol/verify-pool.node.js'
import { signedRecords, type SignedRecord } from './sync-records'

const ROOM = 'bench-sync'
/** Sizes measured by default: the 1,000, 10,000 and 100,000 records. */
const DEFAULT_SIZES = [1_000, 10_000, 100_000]
/** Share of the set a rejoining peer misses. */
const REJOIN_MISSING = 0.01
/** Sessions before giving up (each moves at most SYNC_MAX_WANT_PER_SESSION records). */
const MAX_SESSIONS = 200

const quiet: NetLogger = { debug() {}, info() {}, warn() {}, error: (m) => console.error(m) }

/**
 * The joiner checks records as a Node agent does: on worker threads with
 * node:crypto's Ed25519, started at the first big batch (checked in-process
 * until they are up: their start is inside the timed join).
 */
const pool = sharedVerifyPool()

/** Clock ticks a second in /proc (USER_HZ: 100 on Linux). */
const PROC_TICKS_PER_S = 100

/**
 * CPU milliseconds of this process's main thread (Linux /proc; undefined
 * elsewhere): what the worker threads and the garbage collector's helpers
 * spend is the rest of process.cpuUsage().
 */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8')
    // fields after the command name, which ends with ') '; utime and stime are the 14th and 15th
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / PROC_TICKS_PER_S
  } catch {
    return undefined
  }
}

function store(records: SignedRecord[]): PlanStore {
  const s = new PlanStore({
    room: ROOM,
    persistence: memoryPersistence(),
    onRecord: () => {},
    decoder: pool.decode,
  })
  for (const r of records) s.addVerified(r.record, r.bytes, false)
  return s
}

function syncer(s: PlanStore): Syncer {
  return new Syncer({ room: ROOM, store: s, logger: quiet, signal: new AbortController().signal })
}

interface Join {
  ms: number
  /** CPU time of this process (both peers, every thread) */
  cpuMs: number
  /** of which the main thread's (reading, reconciling, storing; undefined off Linux) */
  mainCpuMs: number | undefined
  /** records the joiner checked on the verification threads, and in the main thread */
  onThreads: number
  here: number
  sessions: number
  rounds: number
  bytes: number
}

/** One session, `joiner` opening it. */
async function once(a: Syncer, b: Syncer): Promise<SyncReport> {
  const [outbound, inbound] = await streamPair()
  const theirs = b.session(inbound, 'joiner', false)
  const mine = await a.session(outbound, 'full', true)
  await theirs
  if (mine.error !== undefined) throw new Error(`sync failed: ${mine.error}`)
  return mine
}

/** Syncs `joiner` with `full`, session after session, until it holds `target` records. */
async function join(full: PlanStore, joiner: PlanStore, target: number): Promise<Join> {
  const a = syncer(joiner)
  const b = syncer(full)
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  const main0 = mainThreadCpuMs()
  const checked0 = pool.checked
  let sessions = 0
  let rounds = 0
  let bytes = 0
  while (joiner.size < target && sessions < MAX_SESSIONS) {
    const report = await once(a, b)
    sessions++
    rounds += report.rounds
    bytes += report.bytesIn + report.bytesOut
  }
  const cpu = process.cpuUsage(cpu0)
  const main1 = mainThreadCpuMs()
  const checked = pool.checked
  return {
    onThreads: checked.onThreads - checked0.onThreads,
    here: checked.here - checked0.here,
    ms: performance.now() - t0,
    cpuMs: (cpu.user + cpu.system) / 1000,
    mainCpuMs: main0 === undefined || main1 === undefined ? undefined : main1 - main0,
    sessions,
    rounds,
    bytes,
  }
}

async function main(): Promise<void> {
  const arg = process.argv.indexOf('--sizes')
  const sizes = arg > 0 ? (process.argv[arg + 1] ?? '').split(',').map(Number) : DEFAULT_SIZES
  const max = Math.max(...sizes)
  const t = performance.now()
  const all = await signedRecords(max, ROOM)
  console.log(`signed ${all.length} records in ${((performance.now() - t) / 1000).toFixed(1)} s`)
  const results = []
  for (const n of sizes) {
    const records = all.slice(0, n)
    const encoded = records.reduce((sum, r) => sum + r.bytes.length, 0)
    const full = store(records)
    if (full.size !== n)
      throw new Error(`${n - full.size} records refused (duplicates or over quota)`)
    const late = await join(full, store([]), n)
    // a rejoin: one record in 1/REJOIN_MISSING is missing (not a goal record: they come first)
    const step = Math.round(1 / REJOIN_MISSING)
    const partial = store(records.filter((_, i) => i % step !== step - 1))
    const missing = n - partial.size
    const rejoin = await join(full, partial, n)
    const inSync = await once(syncer(partial), syncer(full))
    const row = {
      records: n,
      encodedBytes: encoded,
      meanRecordBytes: Math.round(encoded / n),
      lateJoin: {
        seconds: +(late.ms / 1000).toFixed(2),
        cpuSeconds: +(late.cpuMs / 1000).toFixed(2),
        mainThreadCpuSeconds:
          late.mainCpuMs === undefined ? null : +(late.mainCpuMs / 1000).toFixed(2),
        recordsPerSecond: Math.round(n / (late.ms / 1000)),
        sessions: late.sessions,
        rounds: late.rounds,
        wireBytes: late.bytes,
        overhead: +(late.bytes / encoded - 1).toFixed(4),
        checkedOnThreads: late.onThreads,
        checkedInMainThread: late.here,
      },
      rejoin: {
        missing,
        seconds: +(rejoin.ms / 1000).toFixed(3),
        cpuSeconds: +(rejoin.cpuMs / 1000).toFixed(3),
        rounds: rejoin.rounds,
        wireBytes: rejoin.bytes,
        missingBytes: records
          .filter((_, i) => i % step === step - 1)
          .reduce((s, r) => s + r.bytes.length, 0),
      },
      inSyncBytes: inSync.bytesIn + inSync.bytesOut,
    }
    results.push(row)
    const l = row.lateJoin
    console.log(
      `${n} records (${(encoded / 1e6).toFixed(2)} MB encoded): late join ${l.seconds} s ` +
        `(${l.cpuSeconds} CPU-s, ${l.mainThreadCpuSeconds ?? '?'} in the main thread; checked ${l.checkedOnThreads} on threads, ${l.checkedInMainThread} in the main thread), ` +
        `${l.sessions} sessions, ${l.rounds} rounds, ${(l.wireBytes / 1e6).toFixed(2)} MB on the wire ` +
        `(+${(l.overhead * 100).toFixed(2)}%); rejoin missing ${missing}: ${row.rejoin.seconds} s, ` +
        `${(row.rejoin.wireBytes / 1e3).toFixed(1)} kB on the wire for ${(row.rejoin.missingBytes / 1e3).toFixed(1)} kB of records`,
    )
  }
  console.log(JSON.stringify({ bench: 'sync', threads: pool.threads, loadavg: loadavg(), results }))
  await pool.close()
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
