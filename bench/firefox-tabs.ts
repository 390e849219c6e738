/**
 * Peers as Firefox tabs (`npm run bench:idle -- --browser firefox`):
 * Debian's Firefox ESR over WebDriver BiDi (e2e/fixtures/firefox.ts), the app
 * as `npm start` serves it, one browser context per tab (its own storage and
 * identity: Firefox gives each its own content process, so a tab's CPU is
 * one process's), each opening the invite link with its role. The tabs keep
 * the built-in offline model (choosing the mock LLM through the page is
 * Chromium's TabHost's job): the idle bench's `--offline` room.
 */
import type { Browser, BrowserContext, Page } from 'puppeteer-core'
import { serveApp, type AppServer } from '../relay/app-server'
import { APP_DIST, buildApp } from '../e2e/fixtures/serve'
import { launchFirefox, type Firefox } from '../e2e/fixtures/firefox'
import { memberInviteLink } from '../src/protocol/invite'
import type { PlanRecord } from '../src/protocol/records'
import type { PlanTree } from '../src/runtime/types'
import type { RawCall } from './calls'
import {
  benchRoom,
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

/**
 * The bench's tabs link over loopback with their real addresses, as
 * Chromium's do with their microphone permission; no spare content process
 * is kept, so each web content process is one tab's; and Firefox starts
 * them itself, not through its fork server, whose children are not this
 * process's descendants in /proc (their CPU would go uncounted).
 */
const BENCH_PREFS = {
  'media.peerconnection.ice.obfuscate_host_addresses': false,
  'dom.ipc.processPrelaunch.enabled': false,
  'dom.ipc.forkserver.enable': false,
}
const TAB_START_TIMEOUT_MS = 120_000

interface Tab {
  spec: PeerSpec
  context: BrowserContext
  page: Page
  peerId: string
}

export class FirefoxTabHost implements PeerHost {
  private readonly tabs = new Map<number, Tab>()
  private stopped = false

  private constructor(
    private readonly init: HostInit,
    private readonly firefox: Firefox,
    private readonly app: AppServer,
    private readonly origin: string,
  ) {}

  static async create(
    init: HostInit & { relayPeerId: string },
    log: (line: string) => void,
  ): Promise<FirefoxTabHost> {
    log('firefox tabs: building the app')
    await buildApp()
    const app = await serveApp({
      dir: APP_DIST,
      host: '127.0.0.1',
      port: 0,
      relay: { peerId: init.relayPeerId, multiaddrs: init.relays },
      lanOrigins: () => [],
    })
    try {
      const firefox = await launchFirefox(undefined, BENCH_PREFS)
      return new FirefoxTabHost(init, firefox, app, `http://127.0.0.1:${app.port}`)
    } catch (error) {
      await app.close()
      throw error
    }
  }

  private get browser(): Browser {
    return this.firefox.browser
  }

  async start(specs: PeerSpec[]): Promise<PeerInfo[]> {
    const { room, member } = benchRoom(this.init.room)
    if (!member) throw new Error('tabs: the room needs an owner (a version-7 fragment)')
    const out: PeerInfo[] = []
    for (const spec of specs) {
      const context = await this.browser.createBrowserContext()
      const page = await context.newPage()
      await page.goto(
        memberInviteLink(this.origin, { room, owner: member.owner, me: member.seed }, spec.role),
      )
      await page.waitForFunction(() => window.murmuration !== undefined, {
        timeout: TAB_START_TIMEOUT_MS,
      })
      const peerId = await page.evaluate(() => window.murmuration!.peerId)
      this.tabs.set(spec.index, { spec, context, page, peerId })
      out.push({ index: spec.index, role: spec.role, peerId })
    }
    return out
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

  /** Types the goal into the tab's composer; its id once the tab shows it. */
  async submit(index: number, text: string, maxDepth: number): Promise<string> {
    const { page } = this.tab(index)
    const before = new Set((await this.tree(index)).goals.map((g) => g.id))
    await page.select('select[aria-label="Maximum depth of the plan tree"]', String(maxDepth))
    // (puppeteer's ARIA queries do not work over BiDi: the box by its id)
    await page.type('#goal-text', text)
    await page.keyboard.press('Enter')
    for (;;) {
      const added = (await this.tree(index)).goals.find((g) => !before.has(g.id) && g.text === text)
      if (added) return added.id
      await new Promise((r) => setTimeout(r, WATCH_POLL_MS))
    }
  }

  watchDone(index: number, goals: string[], timeoutMs: number): Promise<number> {
    return watchDone(
      () => this.tree(index),
      goals,
      timeoutMs,
      () => this.stopped,
      WATCH_POLL_MS * 10,
    )
  }

  tree(index: number): Promise<PlanTree> {
    return this.tab(index).page.evaluate(() => window.murmuration!.tree())
  }

  records(index: number): Promise<PlanRecord[]> {
    return this.tab(index).page.evaluate(() => window.murmuration!.records())
  }

  reports(): Promise<PeerReport[]> {
    return Promise.reject(new Error('firefox tabs: no reports (bench:idle only)'))
  }

  takeCalls(): Promise<RawCall[]> {
    return Promise.resolve([])
  }

  cpu(): Promise<CpuSample> {
    return Promise.reject(new Error('firefox tabs: bench:idle reads /proc itself'))
  }

  loopDelay(): Promise<LoopDelay> {
    return Promise.reject(new Error('firefox tabs: no loop delay'))
  }

  async stopPeer(index: number): Promise<void> {
    const tab = this.tabs.get(index)
    if (!tab) return
    this.tabs.delete(index)
    await tab.context.close()
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.tabs.clear()
    await this.firefox.close().catch(() => {})
    await this.app.close()
  }

  private tab(index: number): Tab {
    const tab = this.tabs.get(index)
    if (!tab) throw new Error(`no tab ${index}`)
    return tab
  }
}
