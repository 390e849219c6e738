/**
 * Accessibility: axe-core (WCAG 2.1 A and AA, and best practice) finds no
 * violation on any screen of the app: the start screen, each role's page, a
 * finished plan, the Invite panel, the call inspector and the approval of
 * a split (the author's buttons and note, and another tab's view). One
 * room, walked once, so the audit stays quick. The same room checks the call inspector:
 * it shows the exact request and reply the mock LLM saw, keeps them across
 * a reload, and holds no trace of the API key.
 */
import { readFile } from 'node:fs/promises'
import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'
import type { MockRequestLog } from '../test/mock-llm/server'
import { MOCK_KEY, expect, screenshot, test } from './fixtures/ui-app'
import {
  allowTools,
  expectJoined,
  pickRole,
  submitGoal,
  useModel,
  waitForPeers,
} from './fixtures/ui-steps'

const GOAL = 'Write a short guide to brewing green tea'
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']

/** What axe finds on the page as it is now, one line per fault and element. */
async function violations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze()
  return results.violations.flatMap((v) =>
    v.nodes.map((n) => `${v.id}: ${n.target.join(' ')} — ${n.failureSummary ?? v.help}`),
  )
}

test('axe finds no accessibility fault on any screen', async ({ browse, room, mockLlm }) => {
  test.setTimeout(240_000) // the approval step adds a split round trip and two audits
  const machine = await browse.machine('mine')
  const decomposer = await browse.tab(machine, 'decomposer')
  expect.soft(await violations(decomposer), 'start screen').toEqual([])

  await pickRole(decomposer, room, 'decomposer')
  await useModel(decomposer, {
    provider: 'OpenAI',
    model: 'gpt-4o-mini',
    baseUrl: `${mockLlm.url}/v1`,
    key: MOCK_KEY,
  })
  const tabs: Record<'scorer' | 'executor' | 'observer', Page> = {
    scorer: await browse.tab(machine, 'scorer-1'),
    executor: await browse.tab(machine, 'executor'),
    observer: await browse.tab(machine, 'observer'),
  }
  const second = await browse.tab(machine, 'scorer-2')
  await pickRole(tabs.scorer, room, 'scorer')
  await pickRole(second, room, 'scorer')
  await pickRole(tabs.executor, room, 'executor')
  // the plan has code and live-data leaves: the executor's person turns its tools on
  await allowTools(tabs.executor, { code: true, knowledge: true })
  await pickRole(tabs.observer, room, 'observer')

  await decomposer.getByRole('button', { name: 'Invite', exact: true }).click()
  await decomposer.getByRole('button', { name: 'Invite someone' }).click()
  await expect(decomposer.getByRole('textbox', { name: 'Share link' })).toBeVisible()
  expect.soft(await violations(decomposer), 'invite panel').toEqual([])
  await decomposer.getByRole('button', { name: 'Close' }).click()

  await waitForPeers(tabs.observer, 4)
  // the author asks to approve the split: the approval view, the author's and an observer's
  await submitGoal(decomposer, GOAL, 1, 'For the first split')
  const approve = decomposer.getByRole('button', { name: 'Approve split' })
  await expect(approve).toBeVisible({ timeout: 60_000 })
  await decomposer.getByRole('button', { name: 'Veto split…' }).click()
  await expect(decomposer.getByLabel('Note for the decomposers (optional)')).toBeFocused()
  expect.soft(await violations(decomposer), 'approval view, author').toEqual([])
  await decomposer.getByRole('button', { name: 'Never mind' }).click()
  await expect(
    tabs.observer.getByRole('group', { name: 'Approve or veto this split' }),
  ).toBeVisible()
  expect.soft(await violations(tabs.observer), 'approval view, observer').toEqual([])
  await approve.click()
  await expect(tabs.observer.getByRole('heading', { name: 'Final plan' })).toBeVisible({
    timeout: 120_000,
  })
  expect.soft(await violations(tabs.observer), 'observer, finished plan').toEqual([])
  expect.soft(await violations(decomposer), 'decomposer').toEqual([])
  for (const [role, page] of Object.entries(tabs)) {
    expect.soft(await violations(page), role).toEqual([])
  }

  // the call inspector of the tab that used the mock: what the mock saw, word for word
  const seen = mockLlm.requests.filter((r) => r.taskKind === 'decompose' && r.status === 200)
  expect(seen.length).toBeGreaterThan(0)
  const { system, prompt, reply } = openAiExchange(seen.at(-1)!)
  const inspector = await openInspector(decomposer)
  await inspector.getByLabel('Task').selectOption('decompose')
  await expect(inspector.getByRole('status').filter({ hasText: 'calls' })).toHaveText(
    new RegExp(`^${seen.length} of ${await callCount(decomposer)} calls · `),
  )
  const newest = inspector.getByRole('listitem').first()
  await newest.locator('summary').click()
  expect(await newest.locator('pre.system').textContent()).toBe(system)
  expect(await newest.locator('pre.prompt').last().textContent()).toBe(prompt)
  expect(await newest.locator('pre.reply').last().textContent()).toBe(reply)
  expect.soft(await violations(decomposer), 'call inspector').toEqual([])
  await screenshot(decomposer, 'call-inspector-desktop')
  const [file] = await Promise.all([
    decomposer.waitForEvent('download'),
    newest.getByRole('button', { name: 'Download JSON' }).click(),
  ])
  const downloaded = await readFile(await file.path(), 'utf8')
  expect((JSON.parse(downloaded) as { system: string }).system).toBe(system)
  expect(downloaded).not.toContain(MOCK_KEY)

  // kept across a reload, in this tab's IndexedDB, without the key
  const before = await callCount(decomposer)
  await decomposer.reload()
  await expectJoined(decomposer, 'decomposer')
  expect(await callCount(decomposer)).toBeGreaterThanOrEqual(before)
  const stored = await decomposer.evaluate(
    async (peerId) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(`murmuration-calls-${peerId}`)
        open.onsuccess = () => resolve(open.result)
        open.onerror = () => reject(open.error)
      })
      const all = db.transaction('calls').objectStore('calls').getAll()
      return new Promise<string>(
        (resolve) => (all.onsuccess = () => resolve(JSON.stringify(all.result))),
      )
    },
    await decomposer.evaluate(() => window.murmuration!.peerId),
  )
  expect(stored).toContain(JSON.stringify(prompt).slice(1, -1))
  expect(stored).not.toContain(MOCK_KEY)
})

/** The system prompt, user prompt and reply text of an OpenAI Chat Completions exchange the mock logged. */
function openAiExchange(request: MockRequestLog): {
  system: string
  prompt: string
  reply: string
} {
  const body = request.body as { messages: { role: string; content: string }[] }
  const content = (role: string) => body.messages.find((m) => m.role === role)?.content ?? ''
  const answer = JSON.parse(request.reply ?? '{}') as {
    choices: { message: { content: string } }[]
  }
  return {
    system: content('system'),
    prompt: content('user'),
    reply: answer.choices[0]!.message.content,
  }
}

/** Opens the call inspector; returns the dialog. */
async function openInspector(page: Page) {
  await page.getByRole('button', { name: /^Model calls \(\d+\)$/ }).click()
  const dialog = page.getByRole('dialog', { name: 'Model calls of this tab' })
  await expect(dialog).toBeVisible()
  return dialog
}

/** How many calls the inspector's button says this tab made. */
async function callCount(page: Page): Promise<number> {
  const button = page.getByRole('button', { name: /^Model calls \(\d+\)$/ })
  return Number(/\((\d+)\)/.exec(await button.innerText())?.[1])
}
