/**
 * Executors that act (issue 24), in real Chromium tabs with the mock LLM
 * (which speaks Anthropic's tool calls): a person ticks "Run code in this
 * tab" and "Search the web with my key" in an executor tab; a leaf that
 * needs a computation gets the model's program run in the tab's sandbox,
 * and the program's REAL output (a checksum of a nonce only the test and
 * the program know) reaches the result record, the observer's leaf view and
 * its JSON export; a leaf that needs live facts shows its search's sources
 * as links, in the leaf view and the Markdown export. Before the boxes are
 * ticked the tab offers no code or search, and says so, and so does the
 * observer's roster.
 */
import type { Page } from '@playwright/test'
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { PlanTree, SlotView } from '../src/plan/tree'
import type { PlanRecord, ResultRecord } from '../src/protocol/records'
import { FRIEND_KEY, MOCK_KEY, expect, screenshot, test } from './fixtures/ui-app'
import { expectJoined, submitGoal, useModel, waitForPeers } from './fixtures/ui-steps'

/** The program the "model" asks to run: a FNV-1a hash and a sum over a nonce, printed with markup that must stay text. */
function program(nonce: string): string {
  return [
    `const nonce = ${JSON.stringify(nonce)}`,
    'let hash = 0x811c9dc5',
    'for (const ch of nonce) hash = Math.imul(hash ^ ch.codePointAt(0), 0x01000193) >>> 0',
    'let sum = 0',
    'for (let i = 1; i <= 1000; i++) sum += hash % i',
    "console.log(`<b>checksum</b> ${hash.toString(16).padStart(8, '0')} ${sum}`)",
  ].join('\n')
}

/** What the program prints, computed here: the mock LLM never computes it. */
function expectedOutput(nonce: string): string {
  let hash = 0x811c9dc5
  for (const ch of nonce) hash = Math.imul(hash ^ ch.codePointAt(0)!, 0x01000193) >>> 0
  let sum = 0
  for (let i = 1; i <= 1000; i++) sum += hash % i
  return `<b>checksum</b> ${hash.toString(16).padStart(8, '0')} ${sum}`
}

const SOURCES = [
  { title: 'Rail pass prices <i>2026</i>', url: 'https://example.org/rail-pass?ref=mock' },
  { title: 'Timetable', url: 'https://example.com/timetable' },
]

/** Tabs of one test share 2 cores: a goal with two leaves takes some seconds. */
const DONE_TIMEOUT_MS = 60_000

async function download(page: Page, button: string): Promise<string> {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button }).click(),
  ])
  return readFile(await file.path(), 'utf8')
}

const treeOf = (page: Page): Promise<PlanTree> => page.evaluate(() => window.murmuration!.tree())
const recordsOf = (page: Page): Promise<PlanRecord[]> =>
  page.evaluate(() => window.murmuration!.records())

function leavesOf(tree: PlanTree, goal: string): SlotView[] {
  return tree.goals.find((g) => g.text === goal)?.slots.filter((s) => s.leaf) ?? []
}

/** Waits until every subgoal of `goal` is a classified leaf, or until the goal is done. */
async function waitForGoal(page: Page, goal: string, until: 'classified' | 'done'): Promise<void> {
  await expect
    .poll(
      async () => {
        const view = (await treeOf(page)).goals.find((g) => g.text === goal)
        if (!view) return false
        if (until === 'done') return view.status === 'done'
        return view.slots.length > 0 && view.slots.every((slot) => slot.leaf !== null)
      },
      { timeout: DONE_TIMEOUT_MS, intervals: [250] },
    )
    .toBe(true)
}

/** The goal's button in the room's goal list: shows it in the plan view. */
async function showGoal(page: Page, goal: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Goals in this room' })
    .getByRole('button', { name: new RegExp(`^${goal}`) })
    .click()
}

test('an executor with consent runs the model’s code and searches; every peer sees what ran', async ({
  browse,
  room,
  mockLlm,
  app,
}) => {
  test.setTimeout(120_000)
  const nonce = randomBytes(8).toString('hex')
  const printed = expectedOutput(nonce)
  mockLlm.setBehaviour({
    mode: 'shape',
    branching: 2,
    capability: 'can_run_code',
    toolCode: program(nonce),
    searchResults: SOURCES,
  })
  const mock = {
    provider: 'OpenAI-compatible server' as const,
    model: 'mock-model',
    baseUrl: `${mockLlm.url}/v1`,
    key: MOCK_KEY,
  }

  const mine = await browse.machine('mine')
  const tabs: Record<string, Page> = {}
  for (const role of ['decomposer', 'scorer', 'observer'] as const) {
    tabs[role] = await browse.tab(mine, role, room.link(app.origin, role))
    await expectJoined(tabs[role], role)
  }
  tabs.scorer2 = await browse.tab(mine, 'scorer-2', room.link(app.origin, 'scorer'))
  await expectJoined(tabs.scorer2, 'scorer')
  for (const page of [tabs.decomposer!, tabs.scorer!, tabs.scorer2]) await useModel(page, mock)
  const observer = tabs.observer!

  // a friend's executor, with their own Anthropic key (served by the mock)
  const friend = await browse.machine('friend')
  const executor = await browse.tab(friend, 'executor', room.link(app.origin, 'executor'))
  await expectJoined(executor, 'executor')
  await useModel(executor, {
    provider: 'Anthropic',
    model: 'claude-haiku-4-5',
    baseUrl: `${mockLlm.url}/v1`,
    key: FRIEND_KEY,
  })

  // a real key: code and search are off until its person turns them on, the switches say so, and why …
  const panel = executor.getByRole('complementary', { name: 'This tab’s role' })
  const offered = panel.getByRole('group', { name: 'What this executor does' })
  const runCode = offered.getByRole('switch', { name: /^Run code/ })
  const live = offered.getByRole('switch', { name: /^Look up live facts/ })
  await expect(runCode).not.toBeChecked()
  await expect(live).not.toBeChecked()
  await expect(offered.getByRole('switch', { name: /^Write text/ })).toBeChecked()
  await expect(offered).toContainText('can_run_code: not offered — off until you turn it on')
  await expect(offered).toContainText('can_query_api: not offered — off until you turn it on')
  await expect(offered).toContainText('can_write_text: offered')
  await waitForPeers(observer, 4)

  // a goal whose leaves need a computation, then one whose leaves need live facts
  const codeGoal = `Compute the checksum of ${nonce}`
  await submitGoal(tabs.decomposer!, codeGoal, 1)
  await waitForGoal(observer, codeGoal, 'classified')
  mockLlm.setBehaviour({ capability: 'can_query_api' })
  const searchGoal = `Find rail pass prices for ${nonce}`
  await submitGoal(tabs.decomposer!, searchGoal, 1)
  // … which wait: the room heard (presence) that nobody offers code or search
  const roster = observer.getByRole('region', { name: 'Who is in this room' })
  await expect(roster).toContainText('No executor can run code or look up live facts')
  await showGoal(observer, codeGoal)
  const tree = observer.getByRole('tree', { name: `Plan tree: ${codeGoal}` })
  await expect(
    tree.getByRole('treeitem', { name: /^Part 1 of 2.*Waiting: nobody in the room offers code/ }),
  ).toBeVisible()
  expect(mockLlm.requests.filter((r) => r.taskKind === 'execute')).toEqual([])

  // the person opts in
  const search = offered.getByRole('checkbox', { name: 'Search the web with my key' })
  await expect(search).not.toBeChecked()
  await expect(panel.getByText(/searches are billed per call by Anthropic/)).toBeVisible()
  await runCode.click()
  await search.click()
  await expect(runCode).toBeChecked()
  await expect(live).toBeChecked()
  await expect(search).toBeChecked()
  await expect(offered).toContainText('can_run_code: offered')
  await expect(offered).toContainText('can_query_api: offered — with web search')
  await screenshot(executor, 'tools-consent')
  expect(await executor.evaluate(() => localStorage.getItem('murmuration:tools'))).toBe(
    JSON.stringify({ runCode: true, webSearch: true, knowledgeAnswers: false }),
  )
  await waitForGoal(observer, codeGoal, 'done')
  await expect(roster).not.toContainText('No executor can')

  // the model called run_javascript, and the result records hold what the program REALLY printed
  expect(mockLlm.requests.some((r) => r.tool === 'code-call')).toBe(true)
  const codeLeaves = leavesOf(await treeOf(observer), codeGoal)
  const results = (await recordsOf(observer)).filter(
    (r): r is ResultRecord =>
      r.kind === 'result' && codeLeaves.some((leaf) => leaf.leaf!.id === r.task),
  )
  expect(results.length).toBe(codeLeaves.length)
  for (const result of results) {
    expect(result.steps?.[0]).toMatchObject({
      type: 'code',
      language: 'javascript',
      code: program(nonce),
      stdout: `${printed}\n`,
      exit: 0,
      timedOut: false,
    })
  }

  // the observer's leaf view shows the code step, as text
  await tree.getByRole('treeitem', { name: /^Part 1 of 2/ }).click()
  const detail = observer.locator('.node-detail')
  const steps = detail.getByRole('region', { name: /What the executor ran and looked up/ })
  await expect(
    steps.getByRole('heading', { name: /^Ran code \(JavaScript, exit code 0, [\d.]+ m?s\)$/ }),
  ).toBeVisible()
  await expect(steps.getByRole('group', { name: 'Code, step 1' })).toHaveText(program(nonce))
  await expect(steps.getByRole('group', { name: 'Output, step 1' })).toHaveText(`${printed}\n`)
  expect(await steps.locator('b').count()).toBe(0)
  await screenshot(observer, 'tools-code-step')

  // the observer's JSON export holds the steps as the records do
  const json = JSON.parse(await download(observer, 'Download JSON')) as {
    goal: { slots: SlotView[] }
  }
  for (const slot of json.goal.slots) {
    expect(slot.leaf!.steps).toEqual(results.find((r) => r.task === slot.leaf!.id)!.steps)
  }

  // the search leaf: its sources, as links in the leaf view and in the Markdown export
  await waitForGoal(observer, searchGoal, 'done')
  expect(mockLlm.requests.some((r) => r.tool === 'search')).toBe(true)
  await showGoal(observer, searchGoal)
  await observer
    .getByRole('tree', { name: `Plan tree: ${searchGoal}` })
    .getByRole('treeitem', { name: /^Part 1 of 2/ })
    .click()
  const sources = detail.getByRole('list', { name: 'Sources' })
  for (const source of SOURCES) {
    const link = sources.getByRole('link', { name: source.title })
    await expect(link).toHaveAttribute('href', source.url)
    await expect(link).toHaveAttribute('target', '_blank')
    await expect(link).toHaveAttribute('rel', 'noopener noreferrer nofollow')
  }
  expect(await sources.locator('i').count()).toBe(0)
  const markdown = await download(observer, 'Download Markdown')
  expect(markdown).toContain('## What the executors ran and looked up')
  expect(markdown).toContain(`- [Timetable](${SOURCES[1]!.url})`)
  expect(markdown).toContain(`(${SOURCES[0]!.url})`)
  expect(browse.pageErrors).toEqual([])
})
