/**
 * A friend on a phone (issue 58): Chromium's mobile emulation (Playwright's
 * Pixel 7: a 412 × 915 viewport, touch, a phone's user agent) opens the share
 * link without a role, picks one by tap, and follows the plan to its end.
 * Nothing it needs is off-screen or wider than the screen (no sideways
 * scrolling) on the start screen, in the room, and with the plan shown.
 */
import { devices, type Locator, type Page } from '@playwright/test'
import { expect, screenshot, test } from './fixtures/ui-app'
import {
  expectJoined,
  pickRole,
  readShareLink,
  submitGoal,
  waitForPeers,
} from './fixtures/ui-steps'

const PHONE = devices['Pixel 7']
const GOAL = 'Plan a two-week trip to Japan'
const FINISH_TIMEOUT_MS = 90_000

/**
 * Visible elements that stick out of the viewport sideways, except inside a
 * box that scrolls or clips them itself (a code block, a long link list).
 */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth
    const clipped = (el: Element): boolean => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX
        if (o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip') return true
      }
      return false
    }
    const out: string[] = []
    if (document.documentElement.scrollWidth > width + 1)
      out.push(`the page is ${document.documentElement.scrollWidth} px wide for ${width}`)
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect()
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue
      // the content of a closed <details> has a layout but is not shown
      if (el.closest('details:not([open]) > :not(summary)')) continue
      if ((r.right > width + 1 || r.left < -1) && !clipped(el)) {
        const name = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)
        out.push(
          `${el.tagName.toLowerCase()} "${name}" spans ${Math.round(r.left)}..${Math.round(r.right)}`,
        )
      }
    }
    return out.slice(0, 10)
  })
}

/** Visible, and within the screen's width, all of it. */
async function expectWithinWidth(locator: Locator): Promise<void> {
  await expect(locator).toBeVisible()
  const box = (await locator.boundingBox())!
  expect(box.x).toBeGreaterThanOrEqual(0)
  expect(box.x + box.width).toBeLessThanOrEqual(PHONE.viewport.width + 0.5)
}

test('a phone joins from the share link, picks a role by tap, and follows the plan', async ({
  browser,
  browse,
  room,
  app,
}) => {
  test.setTimeout(FINISH_TIMEOUT_MS + 120_000)
  const host = await browse.machine('host')
  const tabs: Page[] = []
  for (const role of ['decomposer', 'scorer', 'scorer'] as const) {
    const page = await browse.tab(host, role)
    await pickRole(page, room, role)
    tabs.push(page)
  }
  const decomposer = tabs[0]!
  const link = new URL(await readShareLink(decomposer))
  await decomposer.getByRole('button', { name: 'Close' }).click()
  // the link without its role: the phone's person chooses one
  link.searchParams.delete('role')

  const phone = await browser.newContext({ ...PHONE })
  await phone.grantPermissions(['microphone'], { origin: app.origin })
  try {
    const page = await phone.newPage()
    await page.goto(link.toString())
    expect(await page.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true)
    await expect(page.getByRole('heading', { name: 'Choose what this tab does' })).toBeVisible()
    expect(await overflowing(page)).toEqual([])
    const executor = page.getByRole('button', { name: /^Executor\b/ })
    // below the fold is fine on a phone (it scrolls down); wider than the screen is not
    await executor.scrollIntoViewIfNeeded()
    await expectWithinWidth(executor)
    await executor.tap()
    await expectJoined(page, 'executor')
    expect(await overflowing(page)).toEqual([])
    // the way out and the invite are reachable on the phone's screen
    const bar = page.getByRole('banner')
    for (const name of ['Leave or switch role', 'Invite']) {
      await expectWithinWidth(bar.getByRole('button', { name }))
    }

    await waitForPeers(decomposer, 3)
    await submitGoal(decomposer, GOAL, 2)
    // the phone follows the plan to its end, and did the work
    const finalPlan = page.getByRole('heading', { name: 'Final plan' })
    await expect(finalPlan).toBeVisible({ timeout: FINISH_TIMEOUT_MS })
    await expect(page.getByRole('heading', { name: /^Your results \([1-9]\d*\)$/ })).toBeVisible()
    expect(await overflowing(page)).toEqual([])
    // the list of links opens by tap, within the screen, and closes again
    const links = bar.getByText('Links', { exact: true })
    await links.tap()
    await expectWithinWidth(bar.getByRole('list', { name: 'How each link goes' }))
    expect(await overflowing(page)).toEqual([])
    await links.tap()
    await expect(bar.getByRole('list', { name: 'How each link goes' })).toBeHidden()
    // a leaf of the plan opens by tap, and its result fits the screen
    const leaf = page.getByRole('treeitem').filter({ hasText: /done/i }).last()
    await leaf.scrollIntoViewIfNeeded()
    await leaf.tap()
    expect(await overflowing(page)).toEqual([])
    await finalPlan.scrollIntoViewIfNeeded()
    await expect(finalPlan).toBeInViewport()
    await screenshot(page, 'phone-plan')
  } finally {
    await phone.close()
  }
})
