/**
 * `npm run bench:idle`: what tabs and agents left open in a room cost.
 *
 * A real relay, N Chromium tabs (the built app, one browser context each, as
 * tabs.ts opens them) and M Node agents (one process each, bench/child.ts),
 * all in one room with the mock LLM. Timeline:
 *
 * 1. mesh: every peer linked to every other (not measured);
 * 2. idle before: `--before` minutes with nothing to do;
 * 3. run: one goal (the bench's default tree) submitted from an agent, until
 *    every peer sees it done;
 * 4. idle after: `--minutes` minutes with the finished plan on every screen
 *    (the case of issue 28: tabs left open once their plan is done), its
 *    first minutes apart (AFTER_WINDOWS: issue 58 measured 60 s windows from
 *    about 1.5 minutes after the plan, where a phone or a laptop on battery
 *    pays as much as later).
 *
 * Each phase prints the CPU of every process, in % of one core, from
 * /proc/<pid>/stat (utime + stime): each tab's renderer (its page and its
 * worker), Chromium's shared processes (browser, GPU, network), each
 * agent's process, and this process (the relay, the app server, Playwright).
 * Nothing talks to the pages while a phase is measured. The last line is
 * one JSON object.
 */
import { setMaxListeners } from 'node:events'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { createRelay } from '../relay/relay'
import { silentLogger } from '../src/net/log'
import { DIRECT_LINKS } from '../src/net/constants'
import type { Role } from '../src/runtime/types'
import { benchRoomFragment, type PeerHost, type PeerSpec } from './host'
import { forkMockLlm } from './mock-process'
import { chromiumType, descendants, firefoxType, hasThread, readProc, threadCpu } from './proc-cpu'
import { RemoteHost } from './remote'
import type { TabHost } from './tabs'
import type { FirefoxTabHost } from './firefox-tabs'

setMaxListeners(1000)

const USAGE = `npm run bench:idle -- [options]
  --tabs N        Chromium tabs (default 6)
  --agents M      Node agents, one process each (default 2)
  --minutes X     idle minutes after the run (default 5; the issue's figure: 10),
                  its first minutes measured apart (15-90, 90-150, 150-210 s)
  --before X      idle minutes before the run (default 1)
  --sample S      seconds between progress lines (default 30)
  --no-run        skip the run (idle before only)
  --offline       tabs keep the built-in offline model, and the goal goes in
                  from the decomposer tab (a newcomer's room; --agents 0 allowed)
  --browser B     chromium (default) or firefox (Debian's Firefox ESR; implies --offline)`

/** Tabs' roles in order: the observer first (it only watches), then the workers. */
const TAB_ROLES: Role[] = ['observer', 'decomposer', 'scorer', 'executor', 'scorer', 'executor']
/** Agents' roles in order: a scorer and an executor make any mix of tabs able to finish a plan. */
const AGENT_ROLES: Role[] = ['scorer', 'executor', 'decomposer']
/** The run's tree: the bench's default shape (13 goals, 27 leaves) with 1 s calls. */
const RUN = { branching: 3, depth: 3, latencyMs: 1_000, timeoutMs: 180_000 }
const MESH_TIMEOUT_MS = 120_000
const MESH_POLL_MS = 500
/** After the mesh, presence and the first anti-entropy rounds settle before the idle clock starts. */
const SETTLE_MS = 15_000
/**
 * The first minutes after the plan, each measured apart (seconds from the
 * moment every tab shows the plan done, SETTLE_MS included): the room turns
 * quiet 15 s after the plan (OVER_ROOM_AFTER_MS), its surplus links close
 * 15 s later, anti-entropy spaces out from 20 s; issue 58's windows were
 * 90 to 150 s and 150 to 210 s.
 */
const AFTER_WINDOWS_S = [15, 90, 150, 210]

interface Options {
  tabs: number
  agents: number
  minutes: number
  before: number
  sampleS: number
  run: boolean
  offline: boolean
  browser: 'chromium' | 'firefox'
}

function parse(argv: string[]): Options {
  const o: Options = {
    tabs: 6,
    agents: 2,
    minutes: 5,
    before: 1,
    sampleS: 30,
    run: true,
    offline: false,
    browser: 'chromium',
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const num = () => {
      const v = Number(argv[++i])
      if (!Number.isFinite(v) || v < 0) throw new Error(`${arg} wants a number`)
      return v
    }
    if (arg === '--tabs') o.tabs = num()
    else if (arg === '--agents') o.agents = num()
    else if (arg === '--minutes') o.minutes = num()
    else if (arg === '--before') o.before = num()
    else if (arg === '--sample') o.sampleS = Math.max(1, num())
    else if (arg === '--no-run') o.run = false
    else if (arg === '--offline') o.offline = true
    else if (arg === '--browser') {
      const b = argv[++i]
      if (b !== 'chromium' && b !== 'firefox')
        throw new Error('--browser wants chromium or firefox')
      o.browser = b
      // Firefox's tabs keep the offline model (firefox-tabs.ts)
      if (b === 'firefox') o.offline = true
    } else if (arg === '--help') {
      console.log(USAGE)
      process.exit(0)
    } else throw new Error(`unknown option ${arg}\n${USAGE}`)
  }
  if (o.run && o.agents < 1 && !(o.offline && o.tabs >= 2))
    throw new Error('a run needs at least one agent (it submits the goal), or --offline tabs')
  return o
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits

/** CPU seconds so far of each measured process, by label. */
type Snapshot = {
  at: number
  cpu: Map<string, number>
  /** BENCH_THREADS=1: CPU seconds of the first tab's threads, by name */
  threads?: Map<string, number>
}

async function snapshot(agents: RemoteHost[]): Promise<Snapshot> {
  const cpu = new Map<string, number>()
  let renderer = 0
  let firstTab: number | undefined
  for (const p of descendants(process.pid).sort((a, b) => a.pid - b.pid)) {
    // a Firefox tab is its own web content process (one browser context each:
    // firefox-tabs.ts), the one running the app's workers; Firefox keeps others
    // (its first blank page's)
    const firefox = firefoxType(p.pid)
    if (firefox) {
      const app = firefox === 'tab' && hasThread(p.pid, 'DOM Worker')
      if (app && renderer === 0 && process.env.BENCH_THREADS) firstTab = p.pid
      const label = app ? `tab ${renderer++}` : `firefox ${firefox}`
      cpu.set(label, (cpu.get(label) ?? 0) + p.cpuSeconds)
      continue
    }
    const type = chromiumType(p.pid)
    if (!type) continue
    // a tab's renderer runs its worker; Chromium keeps other renderers too (spare, blank pages)
    const tab = type === 'renderer' && hasThread(p.pid, 'DedicatedWorker')
    if (tab && renderer === 0 && process.env.BENCH_THREADS) firstTab = p.pid
    const label = tab ? `tab ${renderer++}` : `chromium ${type}`
    cpu.set(label, (cpu.get(label) ?? 0) + p.cpuSeconds)
  }
  const self = readProc(process.pid)
  if (self) cpu.set('bench (relay, app server, playwright)', self.cpuSeconds)
  const samples = await Promise.all(agents.map((a) => a.cpu()))
  samples.forEach((s, i) => cpu.set(`agent ${i}`, s.cpuMicros / 1e6))
  const threads = firstTab === undefined ? undefined : (threadCpu(firstTab) ?? undefined)
  return { at: Date.now(), cpu, ...(threads ? { threads } : {}) }
}

/** % of one core per process between two snapshots. */
function percent(a: Snapshot, b: Snapshot): Record<string, number> {
  const wall = (b.at - a.at) / 1000
  const out: Record<string, number> = {}
  for (const [label, end] of b.cpu) {
    const start = a.cpu.get(label)
    if (start !== undefined) out[label] = round((100 * (end - start)) / wall)
  }
  return out
}

function summary(p: Record<string, number>) {
  const pick = (prefix: string) =>
    Object.entries(p)
      .filter(([k]) => k.startsWith(prefix))
      .map(([, v]) => v)
  const tabs = pick('tab ')
  const agents = pick('agent ')
  // the browser's own processes, shared by its tabs
  const shared = [...pick('chromium '), ...pick('firefox ')].reduce((a, b) => a + b, 0)
  const max = (xs: number[]) => (xs.length ? Math.max(...xs) : 0)
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0)
  return {
    tab_mean: round(mean(tabs)),
    tab_max: round(max(tabs)),
    chromium_shared: round(shared),
    tab_with_share: round(mean(tabs) + (tabs.length ? shared / tabs.length : 0)),
    agent_mean: round(mean(agents)),
    agent_max: round(max(agents)),
  }
}

/** Samples for `minutes`, printing each window, and returns the whole phase's figures. */
async function measure(name: string, minutes: number, o: Options, agents: RemoteHost[]) {
  const first = await snapshot(agents)
  const end = first.at + minutes * 60_000
  let last = first
  while (Date.now() < end) {
    await sleep(Math.min(o.sampleS * 1000, end - Date.now()))
    const now = await snapshot(agents)
    const s = summary(percent(last, now))
    console.log(
      `idle: ${name} ${((now.at - first.at) / 1000).toFixed(0)} s: tabs ${s.tab_mean}% (max ${s.tab_max}), ` +
        `browser shared ${s.chromium_shared}%, agents ${s.agent_mean}% (max ${s.agent_max})`,
    )
    last = now
  }
  return phase(name, first, last)
}

function phase(name: string, a: Snapshot, b: Snapshot) {
  const perProcess = percent(a, b)
  const s = summary(perProcess)
  console.log(`idle: ${name} over ${((b.at - a.at) / 1000).toFixed(0)} s, % of one core:`)
  for (const [label, v] of Object.entries(perProcess)) console.log(`  ${label.padEnd(40)} ${v}`)
  if (a.threads && b.threads) {
    // where the first tab's time goes, by thread (BENCH_THREADS=1)
    const wall = (b.at - a.at) / 1000
    const byThread = [...b.threads]
      .map(([name, end]) => [name, (100 * (end - (a.threads!.get(name) ?? 0))) / wall] as const)
      .filter(([, v]) => v >= 0.01)
      .sort((x, y) => y[1] - x[1])
    for (const [name, v] of byThread) console.log(`    tab 0 thread ${name.padEnd(24)} ${round(v)}`)
  }
  console.log(
    `  => per tab ${s.tab_mean}% (max ${s.tab_max}; with its share of the browser's shared processes ${s.tab_with_share}%), per agent ${s.agent_mean}% (max ${s.agent_max})`,
  )
  return { phase: name, seconds: round((b.at - a.at) / 1000, 1), ...s, per_process: perProcess }
}

/** Direct links per peer, read after a phase (a quiet room keeps ring links only). */
async function linkCounts(hosts: PeerHost[]): Promise<number[]> {
  const all = Object.assign({}, ...(await Promise.all(hosts.map((h) => h.links()))))
  return Object.values(all) as number[]
}

async function waitForMesh(hosts: PeerHost[], peers: number): Promise<void> {
  const want = Math.min(peers - 1, DIRECT_LINKS)
  const deadline = Date.now() + MESH_TIMEOUT_MS
  for (;;) {
    const links = Object.values(
      Object.assign({}, ...(await Promise.all(hosts.map((h) => h.links())))),
    )
    if (links.length === peers && links.every((n) => (n as number) >= want)) return
    if (Date.now() > deadline)
      throw new Error(`no full mesh after ${MESH_TIMEOUT_MS} ms: ${links.join(',')}`)
    await sleep(MESH_POLL_MS)
  }
}

async function main(): Promise<number> {
  const o = parse(process.argv.slice(2))
  const mock = await forkMockLlm({
    mode: 'shape',
    branching: RUN.branching,
    latencyMs: RUN.latencyMs,
  })
  const relay = await createRelay({
    port: 0,
    host: '127.0.0.1',
    privateKey: await generateKeyPair('Ed25519'),
    logger: silentLogger,
  })
  // tabs join only as members: with tabs, every peer acts for the room's owner
  const room = benchRoomFragment(`idle-${Date.now().toString(36)}`, o.tabs > 0)
  // no event-loop delay sampling in the agents: it would be most of what an idle one costs
  const init = {
    room,
    relays: relay.multiaddrs,
    baseUrl: `${mock.url}/v1`,
    loopDelay: false,
    offline: o.offline,
  }
  const agents: RemoteHost[] = []
  let tabs: TabHost | FirefoxTabHost | null = null
  const phases = []
  try {
    for (let i = 0; i < o.agents; i++) {
      const host = await RemoteHost.create(init)
      agents.push(host)
      await host.start([{ index: i, role: AGENT_ROLES[i % AGENT_ROLES.length]! }])
    }
    const hosts: PeerHost[] = [...agents]
    if (o.tabs > 0) {
      const host =
        o.browser === 'firefox'
          ? (await import('./firefox-tabs')).FirefoxTabHost
          : (await import('./tabs')).TabHost
      tabs = await host.create({ ...init, relayPeerId: relay.peerId }, (l) => console.log(l))
      const specs: PeerSpec[] = Array.from({ length: o.tabs }, (_, k) => ({
        index: o.agents + k,
        role: TAB_ROLES[k % TAB_ROLES.length]!,
      }))
      await tabs.start(specs)
      hosts.push(tabs)
    }
    const peers = o.tabs + o.agents
    await waitForMesh(hosts, peers)
    console.log(
      `idle: ${o.tabs} tabs and ${o.agents} agents meshed; settling ${SETTLE_MS / 1000} s`,
    )
    await sleep(SETTLE_MS)
    const withLinks = async (p: ReturnType<typeof phase>) => {
      const links = await linkCounts(hosts)
      console.log(`  links per peer at the end: ${links.join(' ')}`)
      return { ...p, links }
    }
    if (o.before > 0)
      phases.push(await withLinks(await measure('idle before the run', o.before, o, agents)))
    if (o.run) {
      const a = await snapshot(agents)
      // from an agent, or (offline, no agent) from the decomposer tab, the second
      const [from, index] = agents.length > 0 ? [agents[0]!, 0] : [tabs!, o.agents + 1]
      const root = await from.submit(index, 'Plan a two-week trip to Japan', RUN.depth)
      await from.watchDone(index, [root], RUN.timeoutMs)
      const b = await snapshot(agents)
      phases.push(phase('run', a, b))
      // every tab shows it done before the idle clock starts (polling the pages costs them CPU)
      await Promise.all(
        [...Array(o.tabs).keys()].map((k) => tabs!.watchDone(o.agents + k, [root], RUN.timeoutMs)),
      )
      const doneAt = Date.now()
      await sleep(SETTLE_MS)
      // the first minutes apart, then the rest of `--minutes` as one phase
      const endAt = doneAt + o.minutes * 60_000
      for (let w = 0; w + 1 < AFTER_WINDOWS_S.length; w++) {
        const [from, to] = [AFTER_WINDOWS_S[w]!, AFTER_WINDOWS_S[w + 1]!]
        const until = Math.min(doneAt + to * 1000, endAt)
        const wait = doneAt + from * 1000 - Date.now()
        if (wait > 0) await sleep(wait)
        if (until - Date.now() < 1000) break
        phases.push(
          await withLinks(
            await measure(
              `idle ${from} to ${to} s after the plan`,
              (until - Date.now()) / 60_000,
              o,
              agents,
            ),
          ),
        )
      }
      const rest = endAt - Date.now()
      if (rest > 1000)
        phases.push(
          await withLinks(
            await measure(
              `idle from ${AFTER_WINDOWS_S.at(-1)} s after the plan`,
              rest / 60_000,
              o,
              agents,
            ),
          ),
        )
    }
  } finally {
    await Promise.allSettled([...agents.map((a) => a.stop()), tabs?.stop()])
    await relay.stop()
    await mock.close()
  }
  console.log(JSON.stringify({ tabs: o.tabs, agents: o.agents, phases }))
  return 0
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error.stack ?? error.message)
    process.exit(1)
  },
)
