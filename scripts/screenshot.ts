/**
 * `npm run screenshot`: the README's picture of a plan, taken from the real
 * app. Serves a build as `npm start` does (e2e/fixtures/serve.ts), opens an
 * observer tab in Debian's Chromium (a new room), then the room's other
 * roles from its own "Open another tab as …" links, submits a goal on the
 * built-in offline model and, once the final plan is shown, saves the
 * observer's tab as docs/images/plan.png. Run it again when the app's look
 * or the offline model's texts change.
 *
 *   npm run screenshot [-- --goal TEXT] [-- --out FILE]
 */
import { chromium, type Page } from '@playwright/test'
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { chromiumArgs } from '../e2e/fixtures/chromium-args'
import { serve } from '../e2e/fixtures/serve'

const ROOT = resolve(import.meta.dirname, '..')
/** the README's example goal */
const DEFAULT_GOAL = 'Plan a two-week trip to Japan'
const DEFAULT_OUT = 'docs/images/plan.png'
/**
 * The picture's size in CSS pixels, at a device scale of 1: wide enough for
 * the top bar on one line and the tree beside the plan, small enough that
 * the PNG stays a few hundred KB.
 */
const VIEWPORT = { width: 1280, height: 860 }
/**
 * How much of the page the picture keeps, from the top: the goal's header,
 * the start of its final plan, the tree and the winning split with its votes.
 */
const PICTURE_HEIGHT = 1280
/** five tabs on two busy cores: joining, linking and the whole plan get time */
const STEP_TIMEOUT_MS = 60_000
const PLAN_TIMEOUT_MS = 180_000
/** the tabs' peers: a decomposer, two scorers and an executor besides the observer */
const OTHER_TABS = ['Decomposer', 'Scorer', 'Scorer', 'Executor'] as const

const { values } = parseArgs({
  options: {
    goal: { type: 'string', default: DEFAULT_GOAL },
    out: { type: 'string', default: DEFAULT_OUT },
  },
})
const out = resolve(ROOT, values.out)

async function joined(page: Page): Promise<void> {
  await page
    .getByRole('banner')
    .getByRole('button', { name: 'Leave or switch role' })
    .waitFor({ timeout: STEP_TIMEOUT_MS })
}

async function peers(page: Page): Promise<number> {
  const text = await page.getByRole('banner').getByLabel('Connections').innerText()
  return Number(/(\d+) peers?/.exec(text)?.[1] ?? 0)
}

async function waitForPeers(page: Page, n: number): Promise<void> {
  const until = Date.now() + STEP_TIMEOUT_MS
  while ((await peers(page)) < n) {
    if (Date.now() > until) throw new Error(`fewer than ${n} peers after ${STEP_TIMEOUT_MS} ms`)
    await page.waitForTimeout(500)
  }
}

const app = await serve()
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: chromiumArgs(),
})
try {
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 })
  context.setDefaultTimeout(STEP_TIMEOUT_MS)
  // WebRTC on loopback gathers no host candidates without it (playwright.config.ts)
  await context.grantPermissions(['microphone'], { origin: app.origin })

  const observer = await context.newPage()
  await observer.goto(app.url)
  await observer.getByRole('button', { name: /^Observer\b/ }).click()
  await joined(observer)

  const roster = observer.getByRole('region', { name: 'Who is in this room' })
  const tabs: Page[] = []
  for (const role of OTHER_TABS) {
    const href = await roster
      .getByRole('link', { name: new RegExp(`^${role}\\b`) })
      .getAttribute('href')
    if (!href) throw new Error(`no link to open a ${role} tab`)
    const tab = await context.newPage()
    await tab.goto(new URL(href, app.url).toString())
    tabs.push(tab)
  }
  for (const tab of tabs) await joined(tab)
  const decomposer = tabs[0]!
  await waitForPeers(observer, OTHER_TABS.length)
  await waitForPeers(decomposer, OTHER_TABS.length)

  const box = decomposer.getByLabel('New goal')
  await box.fill(values.goal)
  await box.press('Enter')
  const started = Date.now()
  await observer.getByRole('heading', { name: 'Final plan' }).waitFor({ timeout: PLAN_TIMEOUT_MS })
  console.log(`final plan ${((Date.now() - started) / 1000).toFixed(1)} s after the goal`)

  await observer.getByRole('button', { name: 'Expand all' }).click()
  await observer.evaluate(() => window.scrollTo(0, 0))
  const height = await observer.evaluate(() => document.documentElement.scrollHeight)
  mkdirSync(dirname(out), { recursive: true })
  await observer.screenshot({
    path: out,
    fullPage: true,
    clip: { x: 0, y: 0, width: VIEWPORT.width, height: Math.min(height, PICTURE_HEIGHT) },
  })
  console.log(`saved ${out}`)
} finally {
  await browser.close()
  await app.stop()
}
