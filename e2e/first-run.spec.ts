/**
 * The first run of a new user (issue 43), as the README tells it: open the
 * app, pick a role (an observer: that makes a room), open the other roles
 * from the room's own "Open another tab as …" links (their hrefs, in this
 * browser), tick nothing, keep the built-in offline model, and submit the
 * example goal from the decomposer's tab at the depth offered. The plan must finish by itself: every leaf
 * done, the goal done (not "finished with failed leaves"), the final plan
 * shown. Real Chromium, relay, WebRTC, workers and IndexedDB; no mock LLM.
 */
import { expect, screenshot, test } from './fixtures/ui-app'
import { expectJoined, leavesDone, waitForPeers } from './fixtures/ui-steps'

const GOAL = 'Plan a two-week trip to Japan'
/**
 * A generous ceiling for the whole plan (the mission asks for "within a
 * minute"; five tabs share two cores with whatever else the machine runs).
 * The time taken is printed, not asserted tightly.
 */
const FINISH_CEILING_MS = 90_000
/** The top bar's height on one line (a wrapped bar is about twice this). */
const ONE_LINE_BAR_PX = 60
/** The depth the composer offers before anyone touches it. */
const OFFERED_DEPTH = '3'

test('first run: the room’s own links, nothing ticked, the offline model finishes the example goal', async ({
  browse,
  app,
}) => {
  test.setTimeout(FINISH_CEILING_MS + 120_000)
  const mine = await browse.machine('mine')
  const first = await browse.tab(mine, 'first')
  await expect(first.getByRole('heading', { name: 'Choose what this tab does' })).toBeVisible()
  await first.getByRole('button', { name: /^Observer\b/ }).click()
  await expectJoined(first, 'observer')

  // the room says what it lacks, and offers the links that fix it
  const roster = first.getByRole('region', { name: 'Who is in this room' })
  const hrefOf = async (role: string) => {
    const link = roster.getByRole('link', { name: new RegExp(`^${role}\\b`) })
    const href = await link.getAttribute('href')
    expect(href).toBeTruthy()
    return new URL(href!, app.url).toString()
  }
  const links = {
    decomposer: await hrefOf('Decomposer'),
    scorer: await hrefOf('Scorer'),
    executor: await hrefOf('Executor'),
  }
  const decomposer = await browse.tab(mine, 'decomposer', links.decomposer)
  const scorer1 = await browse.tab(mine, 'scorer-1', links.scorer)
  const scorer2 = await browse.tab(mine, 'scorer-2', links.scorer)
  const executor = await browse.tab(mine, 'executor', links.executor)
  await expectJoined(decomposer, 'decomposer')
  await expectJoined(scorer1, 'scorer')
  await expectJoined(scorer2, 'scorer')
  await expectJoined(executor, 'executor')

  // nothing ticked: the executor offers what the offline model does, and shows nothing ON that is off
  const panel = executor.getByRole('complementary', { name: 'This tab’s role' })
  for (const name of [/Write text/, /Run code/, /live/i]) {
    await expect(panel.getByRole('switch', { name })).toBeChecked()
  }
  await expect(roster).not.toContainText('No executor can')

  // the goal goes in from the decomposer's tab (an observer only watches)
  await waitForPeers(first, 4)
  await waitForPeers(decomposer, 4)
  await expect(decomposer.getByLabel('Maximum depth of the plan tree')).toHaveValue(OFFERED_DEPTH)
  const box = decomposer.getByLabel('New goal')
  await box.fill(GOAL)
  const started = Date.now()
  await box.press('Enter')
  await expect(box).toHaveValue('')

  await expect(first.getByRole('heading', { name: 'Final plan' })).toBeVisible({
    timeout: FINISH_CEILING_MS,
  })
  const took = Date.now() - started
  console.log(`first run: final plan ${(took / 1000).toFixed(1)} s after the goal`)
  const progress = await leavesDone(first)
  console.log(`first run: ${progress.done} / ${progress.total} leaves done`)
  expect(progress.total).toBeGreaterThanOrEqual(2)
  expect(progress.done).toBe(progress.total)
  const tree = first.getByRole('tree', { name: `Plan tree: ${GOAL}` })
  await expect(tree.getByRole('treeitem').first()).toHaveAttribute('aria-label', /Done/)
  await expect(tree.getByRole('treeitem').first()).not.toHaveAttribute('aria-label', /fail/i)
  await expect(first.getByRole('region', { name: 'Final plan document' })).toContainText(/\w+/)
  await screenshot(first, 'first-run-observer')

  // at 1400 px the top bar is one line, in every role's tab
  for (const page of [first, decomposer, executor]) {
    await page.setViewportSize({ width: 1400, height: 900 })
    const bar = await page.getByRole('banner').boundingBox()
    expect(bar!.height).toBeLessThanOrEqual(ONE_LINE_BAR_PX)
  }
  await screenshot(executor, 'first-run-executor-1400')
  expect(browse.pageErrors).toEqual([])
})
