/**
 * `npm run bench:archive`: what a room of 1,000 finished goals costs a tab,
 * and what archiving them gives back.
 *
 * Finished trees come from the simulator (real role cores, sim model, depth
 * 3); each is copied under new root ids (clone-tree.ts) until the room holds
 * GOALS settled root goals. Then, as a tab holds them:
 *   main thread: the plan store (every record's signed bytes) and the tree
 *                the UI draws;
 *   worker:      the role core's plan state and its derived plan;
 *   IndexedDB:   one entry per record (id → signed bytes).
 * Memory is the JS heap plus ArrayBuffers (record bytes), after a forced GC
 * (run with --expose-gc); IndexedDB as the
 * bytes handed to it (keys and values; the browser's own overhead is extra).
 * Signatures are 64 zero bytes: sizes are exact, nothing is verified here.
 * Then every settled goal is archived (src/runtime/archive.ts's steps) and
 * the same is measured again. The last line is JSON.
 */
import { loadavg } from 'node:os'
import { archiveIds, settledRoots, withoutRecords } from '../src/plan/archive'
import { derivePlan } from '../src/plan/derive'
import { PlanState } from '../src/plan/state'
import { projectTree } from '../src/plan/tree'
import { canonicalBytes } from '../src/protocol/canonical'
import type { PlanRecord } from '../src/protocol/records'
import { derived } from '../src/roles/room-view'
import { PlanStore } from '../src/runtime/store'
import type { RecordPersistence } from '../src/runtime/persist'
import { DEFAULT_SWARM, Swarm } from '../src/sim/swarm'
import { cloneTree } from './clone-tree'

/** Finished root goals in the room (the figure). */
const GOALS = 1_000
/** Distinct simulated trees the room is copied from (a sim run per tree). */
const SOURCE_TREES = 10
/** Bytes before a record's canonical body: format byte and Ed25519 signature. */
const WIRE_HEADER = 65
/** Bytes of one archived id in IndexedDB (packed). */
const PACKED_ID = 16

function finishedTree(seed: number): PlanRecord[] {
  const goals = [`Plan a two-week trip, variant ${seed}`]
  const sim = new Swarm({ ...DEFAULT_SWARM, seed, goals, crashes: false })
  sim.schedule(3_000, { type: 'submit', peer: 0, text: goals[0] as string })
  const observer = sim.peers.find((p) => p.role === 'observer')!
  const done = sim.runUntil(() => settledRoots(derived(observer.state!)).length === 1, 3_600_000)
  if (!done) throw new Error(`seed ${seed} did not finish`)
  return [...observer.state!.plan.records()]
}

function heapMB(): number {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run with node --expose-gc (npm run bench:archive does)')
  gc()
  gc()
  const m = process.memoryUsage()
  // record bytes live in ArrayBuffers, outside the JS heap proper
  return (m.heapUsed + m.arrayBuffers) / 1e6
}

/** Counts what would go to IndexedDB. */
function countingPersistence(): RecordPersistence & { bytes: number } {
  const p = {
    bytes: 0,
    async load() {
      return []
    },
    async save(id: string, bytes: Uint8Array) {
      p.bytes += id.length + bytes.length
    },
    async remove(ids: readonly string[]) {
      void ids
    },
  }
  return p
}

async function main(): Promise<void> {
  let t = performance.now()
  const sources = Array.from({ length: SOURCE_TREES }, (_, i) => finishedTree(1_000 + i))
  const h0 = heapMB()
  // main thread: the plan store holds every record's signed bytes
  const persistence = countingPersistence()
  const store = new PlanStore({ room: 'sim', persistence, onRecord: () => {} })
  let encoded = 0
  for (let g = 0; g < GOALS; g++) {
    const source = sources[g % SOURCE_TREES] as PlanRecord[]
    for (const r of g < SOURCE_TREES ? source : cloneTree(source, g)) {
      const body = canonicalBytes(r)
      const bytes = new Uint8Array(WIRE_HEADER + body.length)
      bytes[0] = 1
      bytes.set(body, WIRE_HEADER)
      encoded += bytes.length
      store.addVerified(r, bytes)
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 0))
  console.log(
    `built ${GOALS} finished goals, ${store.size} records, in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  )
  const h1 = heapMB()
  // worker: the core's plan state (decoded copies, as the worker receives them) and derived plan
  let state = new PlanState()
  for (const r of store.records()) state.add(r)
  let plan = derivePlan(state)
  const settled = settledRoots(plan).length
  if (settled !== GOALS) throw new Error(`${settled} of ${GOALS} goals settled`)
  const h2 = heapMB()
  // kept alive until the end, as the UI keeps the tree it draws
  const views = [projectTree(plan, state)]
  const h3 = heapMB()
  const idb = persistence.bytes
  const total = store.size

  t = performance.now()
  const ids = archiveIds(state, settledRoots(plan))
  await store.archive(ids)
  state = withoutRecords(state, ids)
  plan = derivePlan(state)
  views[0] = projectTree(plan, state)
  const archiveMs = performance.now() - t
  const archived = ids.size
  ids.clear()
  sources.length = 0
  const h4 = heapMB()
  // what the archived ids alone take (a Set of hex strings, as the store keeps them)
  const alone = new Set<string>()
  for (const id of store.tombstones()) alone.add(`${id.slice(0, 16)}${id.slice(16)}`)
  const h5 = heapMB()
  alone.clear()
  void views
  const result = {
    goals: GOALS,
    records: total,
    encodedMB: +(encoded / 1e6).toFixed(1),
    before: {
      planStoreMB: +(h1 - h0).toFixed(1),
      corePlanMB: +(h2 - h1).toFixed(1),
      uiTreeMB: +(h3 - h2).toFixed(1),
      totalHeapMB: +(h3 - h0).toFixed(1),
      indexedDbMB: +(idb / 1e6).toFixed(1),
    },
    archive: { seconds: +(archiveMs / 1000).toFixed(2), records: archived },
    after: {
      totalHeapMB: +(h4 - h0).toFixed(1),
      archivedIdsMB: +(h5 - h4).toFixed(1),
      recordsHeld: store.size,
      tombstones: store.archivedCount,
      indexedDbMB: +((archived * PACKED_ID) / 1e6).toFixed(2),
    },
    loadavg: loadavg(),
  }
  console.log(
    `${GOALS} finished goals, ${result.records} records (${result.encodedMB} MB signed): heap ` +
      `${result.before.totalHeapMB} MB (plan store ${result.before.planStoreMB}, core plan ` +
      `${result.before.corePlanMB}, UI tree ${result.before.uiTreeMB}), IndexedDB ${result.before.indexedDbMB} MB`,
  )
  console.log(
    `archived in ${result.archive.seconds} s: heap ${result.after.totalHeapMB} MB (archived ids ` +
      `${result.after.archivedIdsMB}, the rest bounded id caches), ${result.after.tombstones} ` +
      `archived ids, IndexedDB ${result.after.indexedDbMB} MB`,
  )
  console.log(JSON.stringify({ bench: 'archive', ...result }))
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
