/**
 * The swarm side of the benchmark: a real relay, N real peers (libp2p over
 * loopback: WebSocket to the relay; Node peers link to each other over TCP,
 * tabs over WebRTC signalled through the relay; GossipSub without its own
 * envelope signature, record signatures and validation, anti-entropy sync),
 * the same role code as the tabs, every LLM call over HTTP to the mock LLM.
 * With --tabs, some of the peers are Chromium tabs running the built app
 * (tabs.ts).
 *
 * Timeline: start the peers → wait for a full mesh and for presence to
 * settle (not measured) → submit the root goals → the witness (the observer)
 * sees every root done: that is T_swarm. Then a fresh observer joins and
 * catches up (late join), and everything is stopped.
 */
import { generateKeyPair } from '@libp2p/crypto/keys'
import { createRelay } from '../relay/relay'
import { linkGraph } from '../src/net/topology'
import { silentLogger } from '../src/net/log'
import type { PlanRecord } from '../src/protocol/records'
import { PRESENCE_INTERVAL_MS } from '../src/protocol/rules'
import type { PlanTree, TrafficStats } from '../src/runtime/types'
import { describeCalls, type LlmCall } from './calls'
import {
  benchRoomFragment,
  LocalHost,
  type LoopDelay,
  type PeerHost,
  type PeerInfo,
  type PeerReport,
} from './host'
import { RemoteHost } from './remote'
import type { TabHost } from './tabs'
import { roleList, splitRoles, tabPeers, type RoleSplit } from './split'
import { emptyTraffic } from '../src/runtime/traffic'

export interface SwarmOptions {
  peers: number
  goals: string[]
  depth: number
  /** the mock LLM's base URL (…/v1) */
  baseUrl: string
  capacity?: number
  /** child processes to spread the peers over; 0 = all in this process */
  procs: number
  /** peers join this many at a time (0: all at once) */
  joinBatch: number
  /** of the `peers`, how many run as Chromium tabs (tabs.ts) instead of Node peers */
  tabs: number
  /** how long the goals may take before the run is called failed */
  timeoutMs: number
  log: (line: string) => void
}

export interface LateJoin {
  /** from creating the peer until its tree shows every root done */
  seconds: number
  /** until its first direct link */
  firstLinkSeconds: number
  /** what it received to get there: gossip + sync */
  bytes: number
  records: number
  synced: number
}

export interface SwarmRun {
  split: RoleSplit
  peers: PeerInfo[]
  /** from starting the peers to the mesh (see meshTarget) */
  meshSeconds: number
  /** direct links per peer when the goals went in */
  links: { min: number; median: number }
  submittedAt: number
  doneAt: number
  seconds: number
  calls: LlmCall[]
  /** per peer: traffic from submit to done */
  traffic: Array<{ index: number; role: string; traffic: TrafficStats }>
  /** the witness's records and tree at the end (claims with their times, accepts…) */
  records: PlanRecord[]
  tree: PlanTree | null
  /**
   * seconds after the witness saw the goals done until every peer derived
   * the same tree (null: not within CONVERGE_LIMIT_MS)
   */
  convergedSeconds: number | null
  /** process CPU (all processes) over wall time, submit to done, in % of one core */
  cpuPercent: number
  /** CPU seconds used by all peer processes (and the relay's), submit to done */
  cpuSeconds: number
  /** the worst peer process's event-loop delay, submit to done */
  loopDelay: LoopDelay
  lateJoin: LateJoin | null
  roots: string[]
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Presence beats come at least every PRESENCE_INTERVAL_MS: after one interval every peer knows every peer. */
const SETTLE_MS = PRESENCE_INTERVAL_MS + 1_000
const MESH_POLL_MS = 100

function diffTraffic(a: TrafficStats, b: TrafficStats | undefined): TrafficStats {
  const base = b ?? emptyTraffic()
  return {
    published: a.published - base.published,
    publishedBytes: a.publishedBytes - base.publishedBytes,
    received: a.received - base.received,
    receivedBytes: a.receivedBytes - base.receivedBytes,
    synced: a.synced - base.synced,
    syncedBytes: a.syncedBytes - base.syncedBytes,
  }
}

export async function runSwarm(options: SwarmOptions): Promise<SwarmRun> {
  const { log } = options
  const split = splitRoles(options.peers)
  const roles = roleList(split)
  // tabs join only as members: with tabs, every peer acts for the room's owner
  const room = benchRoomFragment(`bench-${Date.now().toString(36)}`, options.tabs > 0)
  const relay = await createRelay({
    port: 0,
    host: '127.0.0.1',
    privateKey: await generateKeyPair('Ed25519'),
    logger: silentLogger,
  })
  const hostInit = {
    room,
    relays: relay.multiaddrs,
    baseUrl: options.baseUrl,
    ...(options.capacity !== undefined ? { capacity: options.capacity } : {}),
  }
  const hosts: PeerHost[] = []
  const remote: RemoteHost[] = []
  const hostOf = new Map<number, PeerHost>()
  let tabHost: TabHost | null = null
  try {
    const nodeHosts: PeerHost[] = []
    if (options.procs <= 0) {
      nodeHosts.push(new LocalHost(hostInit))
    } else {
      for (let i = 0; i < options.procs; i++) {
        const host = await RemoteHost.create(hostInit)
        nodeHosts.push(host)
        remote.push(host)
      }
    }
    hosts.push(...nodeHosts)
    const tabIndices = new Set(tabPeers(roles.length, options.tabs))
    if (tabIndices.size > 0) {
      // loaded only when asked for: it builds the app and starts Chromium
      const { TabHost } = await import('./tabs')
      tabHost = await TabHost.create({ ...hostInit, relayPeerId: relay.peerId }, log)
      hosts.push(tabHost)
    }
    // spread the Node peers' roles evenly: the i-th of them goes to host i mod hosts
    let nodePeers = 0
    roles.forEach((_, index) =>
      hostOf.set(
        index,
        tabIndices.has(index) ? tabHost! : nodeHosts[nodePeers++ % nodeHosts.length]!,
      ),
    )
    const startedAt = Date.now()
    const infos: PeerInfo[] = []
    let meshLinks: number[] = []
    // peers join in batches, each batch once the previous ones are fully linked:
    // every join costs a WebRTC handshake with every peer already there, and
    // hundreds of handshakes at once on two cores time out and retry for ever
    const batch = options.joinBatch > 0 ? options.joinBatch : roles.length
    for (let first = 0; first < roles.length; first += batch) {
      const indices = roles.map((_, i) => i).slice(first, first + batch)
      const started = await Promise.all(
        hosts.map((host) => {
          const mine = indices
            .filter((i) => hostOf.get(i) === host)
            .map((i) => ({ index: i, role: roles[i]! }))
          return mine.length ? host.start(mine) : Promise.resolve([])
        }),
      )
      infos.push(...started.flat())
      meshLinks = await waitForMesh(hosts, infos, startedAt, options, log)
    }
    infos.sort((a, b) => a.index - b.index)
    log(
      `swarm: ${options.peers} peers (${split.decomposer} decomposers, ${split.scorer} scorers, ` +
        `${split.executor} executors, ${split.observer} observer) in ` +
        `${options.procs <= 0 ? 'this process' : `${options.procs} child processes`}` +
        `${tabIndices.size > 0 ? `, ${tabIndices.size} of them Chromium tabs (${[...tabIndices].map((i) => roles[i]).join(', ')})` : ''}` +
        `${batch < roles.length ? `, joining ${batch} at a time` : ''}`,
    )
    const meshSeconds = (Date.now() - startedAt) / 1000
    const sortedLinks = [...meshLinks].sort((a, b) => a - b)
    const links = {
      min: sortedLinks[0] ?? 0,
      median: sortedLinks[Math.floor(sortedLinks.length / 2)] ?? 0,
    }
    log(
      `swarm: mesh (direct links per peer: fewest ${links.min}, median ${links.median}) in ${meshSeconds.toFixed(1)} s; letting presence settle ${SETTLE_MS / 1000} s`,
    )
    await sleep(SETTLE_MS)

    const settled = (await Promise.all(hosts.map((h) => h.reports()))).flat()
    const linkEnds = settled.reduce((n, r) => n + r.links, 0)
    const webrtcEnds = settled.reduce((n, r) => n + r.webrtcLinks, 0)
    log(`swarm: ${linkEnds / 2} links, ${webrtcEnds / 2} of them WebRTC, the rest TCP`)
    const before = new Map(settled.map((r) => [r.index, r.traffic]))
    await Promise.all(hosts.map((h) => h.takeCalls())) // nothing should be there; start clean
    await Promise.all(hosts.map((h) => h.loopDelay(true)))
    const cpuBefore = await cpuTotal(remote, tabHost)
    const workers = roles.filter((role) => role !== 'observer').length
    const witness = split.observer > 0 ? roles.length - 1 : 0
    const submittedAt = Date.now()
    const roots = await Promise.all(
      options.goals.map((text, i) =>
        hostOf.get(i % workers)!.submit(i % workers, text, options.depth),
      ),
    )
    log(
      `swarm: ${roots.length} goal${roots.length === 1 ? '' : 's'} submitted; waiting for peer ${witness} (${roles[witness]}) to see ${roots.length === 1 ? 'it' : 'them'} done`,
    )
    const progress = setInterval(() => {
      void hostOf
        .get(witness)!
        .tree(witness)
        .then((tree) => {
          const p = tree.progress
          log(
            `swarm: ${((Date.now() - submittedAt) / 1000).toFixed(0)} s: ${p.goals} goals, ` +
              `${p.leavesDone}/${p.leaves} leaves done`,
          )
        })
        .catch(() => {})
    }, 10_000)
    let doneAt: number
    try {
      doneAt = await hostOf.get(witness)!.watchDone(witness, roots, options.timeoutMs)
    } finally {
      clearInterval(progress)
    }
    const cpuAfter = await cpuTotal(remote, tabHost)
    const delays = await Promise.all(hosts.map((h) => h.loopDelay(false)))
    const loopDelay = delays.reduce((worst, d) => (d.p99 > worst.p99 ? d : worst))
    const seconds = (doneAt - submittedAt) / 1000
    log(`swarm: done in ${seconds.toFixed(2)} s`)

    const reports: PeerReport[] = (await Promise.all(hosts.map((h) => h.reports()))).flat()
    const traffic = reports
      .sort((a, b) => a.index - b.index)
      .map((r) => ({
        index: r.index,
        role: r.role,
        traffic: diffTraffic(r.traffic, before.get(r.index)),
      }))
    const calls = describeCalls((await Promise.all(hosts.map((h) => h.takeCalls()))).flat())
    const records = await hostOf.get(witness)!.records(witness)
    const tree = await hostOf.get(witness)!.tree(witness)
    const convergedSeconds = await converged(hosts, doneAt, log)
    const wall = cpuAfter.at - cpuBefore.at
    const cpuSeconds = (cpuAfter.cpuMicros - cpuBefore.cpuMicros) / 1e6
    const cpuPercent = (100 * cpuSeconds * 1000) / wall

    const lateJoin = await joinLate(hostInit, roots, log).catch((error: Error) => {
      log(`late join failed: ${error.message}`)
      return null
    })
    return {
      split,
      peers: infos,
      meshSeconds,
      links,
      submittedAt,
      doneAt,
      seconds,
      calls,
      traffic,
      records,
      tree,
      convergedSeconds,
      cpuPercent,
      cpuSeconds,
      loopDelay,
      lateJoin,
      roots,
    }
  } finally {
    await Promise.allSettled(hosts.map((h) => h.stop()))
    await relay.stop()
  }
}

/**
 * Direct links each peer should have before the goals go in, by peer index:
 * what the dialer aims for (src/net/topology.ts) in a room of these peers.
 */
export function meshTargets(infos: readonly PeerInfo[]): Map<number, number> {
  const graph = linkGraph(infos.map((info) => info.peerId))
  return new Map(infos.map((info) => [info.index, graph.get(info.peerId)!.size]))
}

/** The least any peer may have when the mesh target is not met in time: the run goes on, with a warning. */
const MIN_LINKS = 3

/** Waits until each of the peers started so far has its meshTargets links. */
async function waitForMesh(
  hosts: PeerHost[],
  infos: readonly PeerInfo[],
  startedAt: number,
  options: SwarmOptions,
  log: (line: string) => void,
): Promise<number[]> {
  const count = infos.length
  const targets = meshTargets(infos)
  const deadline = Date.now() + 60_000 + 2_000 * count
  let lastLog = Date.now()
  for (;;) {
    const links = Object.assign({}, ...(await Promise.all(hosts.map((h) => h.links())))) as Record<
      number,
      number
    >
    const counts = Object.values(links)
    const entries = Object.entries(links).map(([index, n]) => ({
      n,
      target: targets.get(Number(index)) ?? 0,
    }))
    const ready = entries.filter(({ n, target }) => n >= target).length
    // the whole room also waits for links made while it filled up to be
    // closed (the dialer's SURPLUS_LINK_GRACE_MS): a room that has been up a
    // while holds only the links it wants, and the run should see that room
    const settled = count < options.peers || entries.every(({ n, target }) => n <= target + 2)
    if (ready === count && settled) return counts
    const elapsed = ((Date.now() - startedAt) / 1000).toFixed(0)
    if (Date.now() > deadline) {
      const min = Math.min(...counts)
      if (min >= Math.min(count - 1, MIN_LINKS)) {
        log(
          `swarm: warning: after ${elapsed} s ${ready}/${count} peers have their links ` +
            `(fewest: ${min}, most: ${Math.max(...counts)}); going on, the dialer keeps at it`,
        )
        return counts
      }
      throw new Error(
        `no mesh after ${elapsed} s (${ready}/${count} peers with their links, fewest ${min})`,
      )
    }
    if (Date.now() - lastLog > 5_000) {
      lastLog = Date.now()
      log(
        `swarm: ${elapsed} s: meshing… ${ready}/${count} peers with their links, fewest ${Math.min(...counts)}` +
          `${count < options.peers ? ` (${count} of ${options.peers} joined)` : ''}`,
      )
    }
    await sleep(MESH_POLL_MS)
  }
}

/** CPU used so far by this process, the child processes and Chromium. */
async function cpuTotal(
  remote: RemoteHost[],
  tabs: TabHost | null,
): Promise<{ cpuMicros: number; at: number }> {
  const own = process.cpuUsage()
  const children = await Promise.all([...remote, ...(tabs ? [tabs] : [])].map((h) => h.cpu()))
  return {
    cpuMicros: own.user + own.system + children.reduce((sum, c) => sum + c.cpuMicros, 0),
    at: Date.now(),
  }
}

/**
 * How long the bench waits for every peer to derive the same tree after the
 * witness saw the goals done. Records still on their way then (a peer's last
 * result, a claim that lost) reach everyone by gossip within a second in a
 * calm room; a loaded one can take a few anti-entropy rounds.
 */
const CONVERGE_LIMIT_MS = 60_000

/** Seconds after `doneAt` until every peer's tree is the same; null if not within CONVERGE_LIMIT_MS. */
async function converged(
  hosts: PeerHost[],
  doneAt: number,
  log: (line: string) => void,
): Promise<number | null> {
  const deadline = Date.now() + CONVERGE_LIMIT_MS
  for (;;) {
    const reports = (await Promise.all(hosts.map((h) => h.reports()))).flat()
    const trees = new Map<string, number>()
    for (const r of reports) trees.set(r.fingerprint, (trees.get(r.fingerprint) ?? 0) + 1)
    if (trees.size === 1) return Math.max(0, Date.now() - doneAt) / 1000
    if (Date.now() > deadline) {
      log(
        `swarm: peers still derive ${trees.size} different trees (${[...trees.values()].join(', ')} peers)`,
      )
      return null
    }
    await sleep(250)
  }
}

/** A fresh observer joins after the plan is done: how long and how many bytes until it has it all. */
async function joinLate(
  hostInit: ConstructorParameters<typeof LocalHost>[0],
  roots: string[],
  log: (line: string) => void,
): Promise<LateJoin> {
  const host = new LocalHost(hostInit)
  try {
    const index = 10_000
    const startedAt = Date.now()
    await host.start([{ index, role: 'observer' }])
    let firstLinkAt = 0
    const linkWatch = (async () => {
      while (firstLinkAt === 0) {
        const links = await host.links()
        if ((links[index] ?? 0) > 0) firstLinkAt = Date.now()
        else await sleep(20)
      }
    })()
    const doneAt = await host.watchDone(index, roots, 60_000)
    if (firstLinkAt === 0) firstLinkAt = doneAt
    await linkWatch
    const [report] = await host.reports()
    const t = report!.traffic
    const late: LateJoin = {
      seconds: (doneAt - startedAt) / 1000,
      firstLinkSeconds: (firstLinkAt - startedAt) / 1000,
      bytes: t.receivedBytes + t.syncedBytes,
      records: t.received + t.synced,
      synced: t.synced,
    }
    log(
      `late join: a fresh observer had the finished plan ${late.seconds.toFixed(2)} s after it started ` +
        `(first link at ${late.firstLinkSeconds.toFixed(2)} s), ${late.records} records / ${late.bytes} bytes received`,
    )
    return late
  } finally {
    await host.stop()
  }
}
