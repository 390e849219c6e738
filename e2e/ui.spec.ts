/**
 * The app as people use it, in real Chromium tabs: a relay and the built app
 * served as `npm start` serves it, real libp2p and WebRTC between tabs, real
 * workers and IndexedDB; only the LLM is a mock server (test/mock-llm).
 * Everything is done by clicking and typing, and checked by what is on screen.
 */
import { readFile } from 'node:fs/promises'
import type { Page } from '@playwright/test'
import { FRIEND_KEY, MOCK_KEY, expect, screenshot, test } from './fixtures/ui-app'
import { describeLink } from './fixtures/rooms'
import {
  allowTools,
  expectJoined,
  leavesDone,
  pickRole,
  readShareLink,
  submitGoal,
  useModel,
  waitForPeers,
} from './fixtures/ui-steps'

const GOAL = 'Plan a two-week trip to Japan'
/** five tabs on two cores: the mesh, then two levels of plan, then the roll-ups */
const FINISH_TIMEOUT_MS = 240_000

/** The page has no horizontal scroll at its current width. */
async function expectNoHorizontalScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  )
  expect(overflow).toBeLessThanOrEqual(0)
}

async function atPhoneWidth(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 })
  await expectNoHorizontalScroll(page)
  await screenshot(page, `${name}-phone`)
  await page.setViewportSize({ width: 1280, height: 800 })
}

async function download(page: Page, button: string): Promise<string> {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button }).click(),
  ])
  return readFile(await file.path(), 'utf8')
}

test('tabs pick roles, a friend joins by share link, the observer sees the finished plan and exports it', async ({
  browse,
  room,
  mockLlm,
  app,
}) => {
  test.setTimeout(FINISH_TIMEOUT_MS + 120_000)
  const mine = await browse.machine('mine')

  // the start screen: four roles, one click each
  const decomposer = await browse.tab(mine, 'decomposer')
  await expect(decomposer.getByRole('heading', { name: 'Choose what this tab does' })).toBeVisible()
  for (const role of ['Decomposer', 'Scorer', 'Executor', 'Observer']) {
    await expect(decomposer.getByRole('button', { name: new RegExp(`^${role}\\b`) })).toBeEnabled()
  }
  await expect(decomposer.getByText('Watch only')).toBeVisible()
  await screenshot(decomposer, 'start-desktop')
  await atPhoneWidth(decomposer, 'start')
  await pickRole(decomposer, room, 'decomposer')

  const scorers = [await browse.tab(mine, 'scorer-1'), await browse.tab(mine, 'scorer-2')]
  for (const scorer of scorers) await pickRole(scorer, room, 'scorer')
  const observer = await browse.tab(mine, 'observer')
  await pickRole(observer, room, 'observer')

  // this machine's decomposer uses "a real LLM": the mock, through the OpenAI-compatible provider
  await useModel(decomposer, {
    provider: 'OpenAI-compatible server',
    model: 'mock-model',
    baseUrl: `${mockLlm.url}/v1`,
    key: MOCK_KEY,
  })
  await expect(
    decomposer
      .getByRole('complementary', { name: 'This tab’s role' })
      .getByText('openai-compatible/mock-model', { exact: true }),
  ).toBeVisible()
  // a model with no known price: the cost caps cannot hold, and the tab says so
  await expect(decomposer.getByRole('status', { name: 'Cost cap not enforced' })).toBeVisible()

  // the share link, opened on another machine (a new browser context), joins as an executor
  const link = await readShareLink(decomposer)
  // a guest's own link (version 7: one per person), made by the owner's panel
  expect(describeLink(room, link)).toEqual({
    origin: app.origin,
    role: 'executor',
    room: true,
    owner: true,
    person: 'other',
  })
  await decomposer.getByRole('button', { name: 'Close' }).click()
  const friend = await browse.machine('friend')
  const executor = await browse.tab(friend, 'friend-executor', link)
  await expectJoined(executor, 'executor')
  await expect(executor.getByRole('heading', { name: 'This tab: executor' })).toBeVisible()
  await expect(executor.getByRole('switch', { name: /Write text/ })).toBeChecked()
  // with their own key, for Anthropic's API (served by the mock)
  await useModel(executor, {
    provider: 'Anthropic',
    model: 'claude-haiku-4-5',
    baseUrl: `${mockLlm.url}/v1`,
    key: FRIEND_KEY,
  })
  // the plan has code and live-data leaves: the friend lets its executor run code and search
  await allowTools(executor, { code: true, search: true })

  // everyone can hear everyone before the goal goes in
  await waitForPeers(observer, 4)
  await submitGoal(decomposer, GOAL, 2)

  // the observer draws the plan as it grows
  await expect(observer.getByRole('heading', { name: GOAL, level: 2 })).toBeVisible({
    timeout: 30_000,
  })
  const tree = observer.getByRole('tree', { name: `Plan tree: ${GOAL}` })
  await expect(tree).toBeVisible()
  await expect(observer.getByText(/Why this split won/)).toBeVisible({ timeout: 90_000 })
  await expect(observer.getByRole('table', { name: /Scores for proposal/ }).first()).toBeVisible()
  await expect(tree.getByRole('treeitem').nth(2)).toBeVisible()

  // … until the final plan is rolled up
  await expect(observer.getByRole('heading', { name: 'Final plan' })).toBeVisible({
    timeout: FINISH_TIMEOUT_MS,
  })
  const progress = await leavesDone(observer)
  expect(progress.total).toBeGreaterThanOrEqual(2)
  expect(progress.done).toBe(progress.total)
  const document = observer.getByRole('region', { name: 'Final plan document' })
  await expect(document).toContainText(/\w+/)
  await expect(tree.getByRole('treeitem').first()).toHaveAttribute('aria-label', /Done/)

  // the friend's executor did real work through its own key
  await expect(executor.getByRole('heading', { name: /^Your results \([1-9]\d*\)$/ })).toBeVisible()
  const anthropic = mockLlm.requests.filter((r) => r.api === 'anthropic' && r.status === 200)
  expect(anthropic.length).toBeGreaterThan(0)
  expect(anthropic.every((r) => r.headers['x-api-key'] === FRIEND_KEY)).toBe(true)
  const openai = mockLlm.requests.filter((r) => r.api === 'openai' && r.status === 200)
  expect(openai.some((r) => r.taskKind === 'decompose')).toBe(true)
  expect(openai.every((r) => r.headers.authorization === `Bearer ${MOCK_KEY}`)).toBe(true)

  // export: the downloads are the plan
  const markdown = await download(observer, 'Download Markdown')
  expect(markdown).toContain(GOAL)
  expect(markdown.split('\n').length).toBeGreaterThan(5)
  const json = JSON.parse(await download(observer, 'Download JSON')) as unknown
  expect(JSON.stringify(json)).toContain(GOAL)

  // screenshots of every role, desktop and phone, each showing what that role is about
  await screenshot(observer, 'observer-finished-desktop')
  await atPhoneWidth(observer, 'observer-finished')
  await expect(decomposer.getByRole('heading', { name: /^Your proposals \([1-9]/ })).toBeVisible()
  await screenshot(decomposer, 'decomposer-desktop')
  await atPhoneWidth(decomposer, 'decomposer')
  await expect(scorers[0]!.getByRole('heading', { name: /^Your scores \(/ })).toBeVisible()
  await screenshot(scorers[0]!, 'scorer-desktop')
  await atPhoneWidth(scorers[0]!, 'scorer')
  await screenshot(executor, 'executor-desktop')
  await atPhoneWidth(executor, 'executor')

  // the keys went to the LLM only: no WebSocket frame of any tab (relay links, signalling) holds them
  expect(browse.frames.length).toBeGreaterThan(0)
  for (const key of [MOCK_KEY, FRIEND_KEY]) {
    const bytes = Buffer.from(key, 'utf8')
    expect(browse.frames.filter((f) => f.payload.includes(bytes)).map((f) => f.page)).toEqual([])
  }
  // each key stays in its own browser
  const storedMine = await observer.evaluate(() => JSON.stringify({ ...localStorage }))
  expect(storedMine).toContain(MOCK_KEY)
  expect(storedMine).not.toContain(FRIEND_KEY)
  const storedFriend = await executor.evaluate(() => JSON.stringify({ ...localStorage }))
  expect(storedFriend).toContain(FRIEND_KEY)
  expect(storedFriend).not.toContain(MOCK_KEY)
  expect(browse.pageErrors).toEqual([])
})
