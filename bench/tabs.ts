/**
 * Peers as Chromium tabs (`npm run bench -- --tabs T`): the app as `npm start`
 * serves it (a production build beside the bench's relay), one browser
 * context per tab (its own IndexedDB and identity, as another person's
 * browser), Debian's Chromium through Playwright. Each tab opens the invite
 * link with its role, as a person does, then picks the mock LLM in "Model and
 * API key" through the page. The swarm runner drives the tabs through the
 * same `PeerHost` interface as Node peers: links, trees and traffic come from
 * the page's read-only `window.murmuration` handle; LLM calls are recorded
 * from the browser's own network events (the worker's fetches), with the
 * browser's timestamps.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  chromium,
  type Browser,
  type BrowserContext,
  type CDPSession,
  type Page,
  type Request,
} from '@playwright/test'
import { serveApp, type AppServer } from '../relay/app-server'
import { useModel } from '../e2e/fixtures/ui-steps'
import { APP_DIST, buildApp } from '../e2e/fixtures/serve'
import type { PlanRecord } from '../src/protocol/records'
import { memberInviteLink } from '../src/protocol/invite'
import type { PlanTree } from '../src/runtime/types'
import type { RawCall } from './calls'
import {
  benchRoom,
  fingerprint,
  watchDone,
  WATCH_POLL_MS,
  type CpuSample,
  type HostInit,
  type LoopDelay,
  type PeerHost,
  type PeerInfo,
  type PeerReport,
  type PeerSpec,
} from './host'

/** Chromium's own flags for WebRTC on loopback (see playwright.config.ts) */
const CHROMIUM_ARGS = ['--allow-loopback-in-peer-connection']
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
/** a tab starts libp2p and a worker: slow when 60 Node peers share the cores */
const TAB_START_TIMEOUT_MS = 120_000
/** each step of picking the model, on a loaded machine */
const UI_STEP_TIMEOUT_MS = 60_000
/** /proc/<pid>/stat times are in clock ticks; Linux's USER_HZ is 100 */
const CLOCK_TICKS_PER_S = 100

interface Tab {
  spec: PeerSpec
  context: BrowserContext
  page: Page
  peerId: string
  /** BENCH_CPU_PROF=dir: the page's main thread is being profiled */
  profiler: CDPSession | null
}

export class TabHost implements PeerHost {
  private readonly tabs = new Map<number, Tab>()
  private readonly calls: RawCall[] = []
  private readonly pending = new Map<Request, RawCall>()
  private stopped = false

  private constructor(
    private readonly init: HostInit,
    private readonly browser: Browser,
    private readonly app: AppServer,
    private readonly origin: string,
  ) {}

  /** Builds the app (once), serves it with /relay.json naming the bench's relay, and starts Chromium. */
  static async create(
    init: HostInit & { relayPeerId: string },
    log: (line: string) => void,
  ): Promise<TabHost> {
    log('tabs: building the app')
    await buildApp()
    const app = await serveApp({
      dir: APP_DIST,
      host: '127.0.0.1',
      port: 0,
      relay: { peerId: init.relayPeerId, multiaddrs: init.relays },
      lanOrigins: () => [],
    })
    try {
      const browser = await chromium.launch({
        executablePath: CHROMIUM_PATH,
        args: CHROMIUM_ARGS,
        headless: true,
      })
      return new TabHost(init, browser, app, `http://127.0.0.1:${app.port}`)
    } catch (error) {
      await app.close()
      throw error
    }
  }

  async start(specs: PeerSpec[]): Promise<PeerInfo[]> {
    // the app joins only as a member (a version-7 link): every tab is the room's owner
    const { room, member } = benchRoom(this.init.room)
    if (!member) throw new Error('tabs: the room needs an owner (a version-7 fragment)')
    // one tab at a time: each start is a burst of CPU (the page, its worker, libp2p)
    const out: PeerInfo[] = []
    for (const spec of specs) {
      const context = await this.browser.newContext()
      await context.grantPermissions(['microphone'], { origin: this.origin })
      context.on('request', (request) => this.recordCall(spec.index, request))
      context.on('requestfinished', (request) => void this.finished(request))
      context.on('requestfailed', (request) => this.failed(request))
      const page = await context.newPage()
      // BENCH_LOG=1: the tabs' console, like the Node peers' logs
      if (process.env.BENCH_LOG)
        page.on('console', (m) => console.log(`[tab ${spec.index}] ${m.text()}`))
      await page.goto(
        memberInviteLink(this.origin, { room, owner: member.owner, me: member.seed }, spec.role),
      )
      await page.waitForFunction(() => window.murmuration !== undefined, undefined, {
        timeout: TAB_START_TIMEOUT_MS,
      })
      // `offline`: the built-in offline model, as a newcomer's tabs have it
      if (spec.role !== 'observer' && this.init.offline !== true) {
        await useModel(
          page,
          { provider: 'OpenAI-compatible server', model: 'mock', baseUrl: this.init.baseUrl },
          UI_STEP_TIMEOUT_MS,
        )
      }
      const peerId = await page.evaluate(() => window.murmuration!.peerId)
      this.tabs.set(spec.index, { spec, context, page, peerId, profiler: await profile(page) })
      if (process.env.BENCH_TAB_TRACE && this.tabs.size === 1)
        await this.browser.startTracing(page, {
          categories: ['devtools.timeline', 'v8', 'disabled-by-default-devtools.timeline'],
        })
      out.push({ index: spec.index, role: spec.role, peerId })
    }
    return out
  }

  /** Starts recording a request to the mock LLM; `finished`/`failed` complete it. */
  private recordCall(peer: number, request: Request): void {
    if (!request.url().startsWith(this.init.baseUrl)) return
    if (request.method() !== 'POST') return // CORS preflights
    const start = Date.now()
    const call: RawCall = {
      peer,
      start,
      end: start,
      status: 'error',
      body: request.postData() ?? '',
    }
    this.calls.push(call)
    this.pending.set(request, call)
  }

  /** An answer arrived: times from the browser's clock (the same machine's), tokens from its usage. */
  private async finished(request: Request): Promise<void> {
    const call = this.pending.get(request)
    if (!call) return
    this.pending.delete(request)
    const t = request.timing()
    if (t.startTime > 0) call.start = Math.round(t.startTime)
    call.end = t.responseEnd >= 0 ? Math.round(t.startTime + t.responseEnd) : Date.now()
    call.status = 'ok'
    try {
      const body = (await (await request.response())?.json()) as
        { usage?: { prompt_tokens?: number; completion_tokens?: number } } | undefined
      if (body?.usage) {
        call.tokens = {
          input: body.usage.prompt_tokens ?? 0,
          output: body.usage.completion_tokens ?? 0,
        }
      }
    } catch {
      // the page dropped the body: no token count
    }
  }

  /** No answer: aborted by the page (a quorum made the call moot) or an error. */
  private failed(request: Request): void {
    const call = this.pending.get(request)
    if (!call) return
    this.pending.delete(request)
    const failure = request.failure()?.errorText ?? 'no answer'
    call.status = failure.includes('ABORTED') ? 'aborted' : 'error'
    if (call.status === 'error') call.error = failure
    call.end = Date.now()
  }

  private tab(index: number): Tab {
    const tab = this.tabs.get(index)
    if (!tab) throw new Error(`no tab ${index}`)
    return tab
  }

  async links(): Promise<Record<number, number>> {
    const out: Record<number, number> = {}
    for (const [index, tab] of this.tabs) {
      out[index] = await tab.page.evaluate(() => {
        const c = window.murmuration!.connections()
        return c.direct + c.other
      })
    }
    return out
  }

  /** Types the goal into the tab's composer, as a person does; its id once the tab shows it. */
  async submit(index: number, text: string, maxDepth: number): Promise<string> {
    const { page } = this.tab(index)
    const before = new Set((await this.tree(index)).goals.map((g) => g.id))
    await page.getByLabel('Maximum depth of the plan tree').selectOption(String(maxDepth))
    const box = page.getByLabel('New goal')
    await box.fill(text)
    await box.press('Enter')
    for (;;) {
      const added = (await this.tree(index)).goals.find((g) => !before.has(g.id) && g.text === text)
      if (added) return added.id
      await new Promise((r) => setTimeout(r, WATCH_POLL_MS))
    }
  }

  /** Polls less often than a Node host: each look is a round trip into the page. */
  watchDone(index: number, goals: string[], timeoutMs: number): Promise<number> {
    return watchDone(
      () => this.tree(index),
      goals,
      timeoutMs,
      () => this.stopped,
      WATCH_POLL_MS * 10,
    )
  }

  async reports(): Promise<PeerReport[]> {
    return Promise.all(
      [...this.tabs.values()].map(async ({ spec, page, peerId }) => {
        const { traffic, links, tree } = await page.evaluate(() => {
          const handle = window.murmuration!
          const c = handle.connections()
          return {
            traffic: handle.traffic(),
            links: { all: c.direct + c.other, webrtc: c.direct },
            tree: handle.tree(),
          }
        })
        return {
          index: spec.index,
          role: spec.role,
          peerId,
          traffic,
          links: links.all,
          webrtcLinks: links.webrtc,
          fingerprint: fingerprint(tree),
        }
      }),
    )
  }

  async takeCalls(): Promise<RawCall[]> {
    return this.calls.splice(0)
  }

  tree(index: number): Promise<PlanTree> {
    return this.tab(index).page.evaluate(() => window.murmuration!.tree())
  }

  records(index: number): Promise<PlanRecord[]> {
    return this.tab(index).page.evaluate(() => window.murmuration!.records())
  }

  /** CPU of Chromium: every process under this one that is not Node (browser, renderers, GPU, utilities). */
  async cpu(): Promise<CpuSample> {
    return { cpuMicros: chromiumCpuMicros(), at: Date.now() }
  }

  /** Not measured in tabs (the runner keeps the worst Node process's figure). */
  async loopDelay(): Promise<LoopDelay> {
    return { p50: 0, p99: 0, max: 0 }
  }

  async stopPeer(index: number): Promise<void> {
    const tab = this.tabs.get(index)
    if (!tab) return
    this.tabs.delete(index)
    await tab.context.close()
  }

  async stop(): Promise<void> {
    this.stopped = true
    const all = [...this.tabs.values()]
    this.tabs.clear()
    await Promise.allSettled(all.map((tab) => saveProfile(tab)))
    if (process.env.BENCH_TAB_TRACE)
      writeFileSync(process.env.BENCH_TAB_TRACE, await this.browser.stopTracing())
    await Promise.allSettled(all.map((tab) => tab.context.close()))
    await this.browser.close().catch(() => {})
    await this.app.close()
  }
}

/** utime + stime of the non-Node descendants of this process, from /proc. */
function chromiumCpuMicros(): number {
  const parent = new Map<number, number>()
  const ticks = new Map<number, number>()
  const names = new Map<number, string>()
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) continue
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      // the name is in parentheses and may hold spaces: split after its closing one
      const close = stat.lastIndexOf(')')
      const fields = stat.slice(close + 2).split(' ')
      names.set(pid, stat.slice(stat.indexOf('(') + 1, close))
      parent.set(pid, Number(fields[1]))
      ticks.set(pid, Number(fields[11]) + Number(fields[12]))
    } catch {
      // gone since readdir
    }
  }
  const isMine = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (p === process.pid) return true
    }
    return false
  }
  let total = 0
  for (const [pid, t] of ticks) {
    if (names.get(pid) !== 'node' && isMine(pid)) total += t
  }
  return (total / CLOCK_TICKS_PER_S) * 1e6
}

/** BENCH_CPU_PROF=dir: starts a V8 CPU profile of the page's main thread (like the Node peers'). */
async function profile(page: Page): Promise<CDPSession | null> {
  if (!process.env.BENCH_CPU_PROF) return null
  const session = await page.context().newCDPSession(page)
  await session.send('Profiler.enable')
  await session.send('Profiler.start')
  return session
}

async function saveProfile(tab: Tab): Promise<void> {
  if (!tab.profiler || !process.env.BENCH_CPU_PROF) return
  const { profile } = await tab.profiler.send('Profiler.stop')
  mkdirSync(process.env.BENCH_CPU_PROF, { recursive: true })
  const file = join(process.env.BENCH_CPU_PROF, `tab-${tab.spec.index}-${tab.spec.role}.cpuprofile`)
  writeFileSync(file, JSON.stringify(profile))
}
