/**
 * A friend's browser is Firefox (issue 58): Debian's Firefox ESR, driven
 * over WebDriver BiDi (fixtures/firefox.ts), on a second simulated machine
 * (fixtures/lan.ts), opens the share link the host's Chromium gives: a page
 * on a LAN address, not a secure context, as in the real world. The
 * journeys that matter to a friend, in one scene: it joins as an executor,
 * and in another tab as an observer; the plan finishes with the work done
 * in the Firefox tab, watched from the Firefox observer; a reload keeps the
 * tab's identity; no page, in either browser, reports a Content-Security-
 * Policy violation or an uncaught error. Needs root (namespaces).
 */
import type { Page as ChromiumPage } from '@playwright/test'
import type { Page } from 'puppeteer-core'
import { requireRoot } from './fixtures/capabilities'
import { cspViolations, launchFirefox, type Firefox } from './fixtures/firefox'
import { LAN_PREFIX } from './fixtures/lan'
import { APP_PORT, startLanScene, type LanScene } from './fixtures/lan-app'
import { testRoom } from './fixtures/rooms'
import { expect } from './fixtures/ui-app'
import { pickRole, readShareLink, submitGoal, waitForPeers } from './fixtures/ui-steps'
import { test } from './fixtures/workers'

const GOAL = 'Plan a two-week trip to Japan'
const HOST_LAN = `${LAN_PREFIX}.1`
/** a small plan (depth 2) on the offline model: two browsers, two machines, two cores */
const FINISH_TIMEOUT_MS = 120_000

test.describe.configure({ mode: 'serial' })
requireRoot(test, { needs: ['netns', 'firefox'] })

/** Waits until `page`'s text contains `text` (puppeteer has no web-first assertions). */
async function waitText(page: Page, text: string | RegExp, timeout = 30_000): Promise<void> {
  const source = typeof text === 'string' ? { s: text } : { re: text.source, flags: text.flags }
  await page
    .waitForFunction(
      (t: { s?: string; re?: string; flags?: string }) => {
        const body = document.body?.innerText ?? ''
        return t.s !== undefined ? body.includes(t.s) : new RegExp(t.re!, t.flags).test(body)
      },
      { timeout, polling: 250 },
      source,
    )
    .catch(async (err: unknown) => {
      const body = await page.evaluate(() => document.body?.innerText ?? '').catch(() => '')
      throw new Error(
        `no "${String(text)}" in the Firefox page within ${timeout} ms: ${String(err)}\n${body.slice(0, 1500)}`,
      )
    })
}

async function peerIdOf(page: Page): Promise<string> {
  await page.waitForFunction(() => window.murmuration !== undefined, { timeout: 30_000 })
  return page.evaluate(() => window.murmuration!.peerId)
}

/** What `page` links to (its node's summary), as kinds by peer. */
function links(page: Page): Promise<{ direct: number; quiet: boolean; viaRelay: number }> {
  return page.evaluate(() => {
    const c = window.murmuration!.connections()
    return { direct: c.direct, quiet: c.quiet, viaRelay: c.viaRelay }
  })
}

test.describe('a friend in Firefox, on another machine, over plain http', () => {
  let scene: LanScene
  let firefox: Firefox
  test.beforeAll(async ({ playwright }) => {
    test.setTimeout(180_000)
    scene = await startLanScene(playwright.chromium, false)
    // the host's own pages watch for CSP violations too
    await scene.host.addInitScript(() => {
      const w = window as unknown as { __cspViolations: string[] }
      w.__cspViolations = []
      document.addEventListener('securitypolicyviolation', (e) =>
        w.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
      )
    })
    firefox = await launchFirefox(scene.lan.friend)
  })
  test.afterAll(async () => {
    await firefox?.close()
    await scene?.close()
  })

  test('joins from the share link as executor and observer, does the work, keeps its identity', async () => {
    test.setTimeout(FINISH_TIMEOUT_MS + 180_000)
    const room = testRoom('firefox-lan')
    const host: ChromiumPage[] = []
    for (const role of ['decomposer', 'scorer', 'scorer'] as const) {
      const page = await scene.tab(scene.host, scene.hostUrl)
      await pickRole(page, room, role)
      host.push(page)
    }
    const decomposer = host[0]!
    const link = await readShareLink(decomposer)
    expect(new URL(link).origin).toBe(`http://${HOST_LAN}:${APP_PORT}`)
    await decomposer.getByRole('button', { name: 'Close' }).click()

    // the friend's Firefox opens the link: an executor, on a page that is not a secure context
    const executor = await firefox.tab(link)
    expect(await executor.evaluate(() => navigator.userAgent)).toContain('Firefox')
    expect(await executor.evaluate(() => isSecureContext)).toBe(false)
    await waitText(executor, 'This tab: executor')
    const friendId = await peerIdOf(executor)
    // and in another tab of theirs, an observer (the same link, as observer)
    const observerLink = new URL(link)
    observerLink.searchParams.set('role', 'observer')
    const observer = await firefox.tab(observerLink.toString())
    await waitText(observer, /Role\s+Observer/)

    // Firefox links directly with the host's Chromium tabs (WebRTC over the LAN)
    await expect
      .poll(async () => (await links(executor)).direct, { timeout: 60_000, intervals: [500] })
      .toBeGreaterThanOrEqual(3)
    expect((await links(executor)).viaRelay).toBe(0)
    await waitText(executor, /\d+ peers: \d+ direct/)

    await waitForPeers(decomposer, 4)
    await submitGoal(decomposer, GOAL, 2)
    // the Firefox observer follows the plan to its end
    await waitText(observer, 'Final plan', FINISH_TIMEOUT_MS)
    const progress = await observer.evaluate(() => window.murmuration!.tree().progress)
    expect(progress.leaves).toBeGreaterThanOrEqual(2)
    expect(progress.leavesDone).toBe(progress.leaves)
    // every leaf's result is the Firefox executor's: the host has no executor
    const results = await observer.evaluate(() =>
      window.murmuration!.records().filter((r) => r.kind === 'result'),
    )
    expect(results.length).toBeGreaterThanOrEqual(progress.leaves)
    expect(results.every((r) => r.from === friendId)).toBe(true)
    await waitText(executor, /Your results \([1-9]\d*\)/)

    // a reload keeps the tab's identity (no Web Locks on a plain-http page: the roll call)
    await executor.reload()
    await waitText(executor, 'This tab: executor')
    expect(await peerIdOf(executor)).toBe(friendId)

    // no CSP violation, no uncaught error, in either browser
    for (const page of [executor, observer]) expect(await cspViolations(page)).toEqual([])
    // Firefox logs each failed ICE attempt as a page error of its own: the
    // friend's two Firefox tabs (one machine, mDNS names both) do not link to
    // each other here, and hear each other through the host's tabs. Anything
    // else is the app's, and must not be there.
    const own = /^page error: Error: WebRTC: ICE failed, add a STUN server/
    expect(firefox.problems.filter((p) => !own.test(p))).toEqual([])
    for (const page of host) {
      expect(
        await page.evaluate(
          () => (window as unknown as { __cspViolations: string[] }).__cspViolations,
        ),
      ).toEqual([])
    }
  })
})
