/**
 * A tab's consent to spend its owner's key, in real Chromium tabs with the
 * mock LLM (which reports token usage like a real provider): a spending cap
 * pauses the role with a notice and raising it resumes the role; a tab set
 * to "only this browser's tabs" never works on another browser's goal.
 */
import type { Page } from '@playwright/test'
import type { MockLlmServer } from '../test/mock-llm/server'
import { MOCK_KEY, expect, screenshot, test } from './fixtures/ui-app'
import { pickRole, submitGoal, useModel, waitForPeers } from './fixtures/ui-steps'

/** The decompose requests the mock LLM got for the goal with this text. */
function splitsOf(mock: MockLlmServer, text: string): number {
  return mock.requests.filter(
    (r) => r.taskKind === 'decompose' && r.status === 200 && JSON.stringify(r.body).includes(text),
  ).length
}

async function useMock(page: Page, mock: MockLlmServer): Promise<void> {
  await useModel(page, {
    provider: 'OpenAI-compatible server',
    model: 'mock-model',
    baseUrl: `${mock.url}/v1`,
    key: MOCK_KEY,
  })
}

/** Opens "Spending limits and whose goals" and saves what `fill` set. */
async function setLimits(page: Page, fill: () => Promise<void>): Promise<void> {
  const summary = page.getByText('Spending limits and whose goals')
  const details = page.locator('details', { has: summary })
  if ((await details.getAttribute('open')) === null) await summary.click()
  await fill()
  await page.getByRole('button', { name: 'Save limits' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Saved for this browser' })).toBeVisible()
}

test('a tab pauses at its token cap with a notice naming it, and raising the cap resumes it', async ({
  browse,
  room,
  mockLlm,
}) => {
  test.setTimeout(150_000)
  const machine = await browse.machine('mine')
  const decomposer = await browse.tab(machine, 'decomposer')
  await pickRole(decomposer, room, 'decomposer')
  await useMock(decomposer, mockLlm)
  // one split of a goal by the mock costs a few hundred tokens: 100 an hour is reached at once
  await setLimits(decomposer, async () => {
    await decomposer.getByLabel('Tokens per hour').fill('100')
  })

  const notice = decomposer
    .getByRole('status', { name: 'Spending cap reached' })
    .filter({ hasText: 'Paused: this tab reached its cap of 100 tokens per hour.' })
  await expect(notice).toHaveCount(0)
  await submitGoal(decomposer, 'Plan a vegetable garden', 1)
  await expect(notice).toBeVisible({ timeout: 60_000 })
  await expect(decomposer.getByText('paused', { exact: true })).toBeVisible()
  // the mock model has no known price: its cost is unknown, never $0
  await expect(decomposer.getByText('unknown (no known price)')).toBeVisible()
  // and with the default cost caps set, the tab says they cannot hold for it
  await expect(decomposer.getByRole('status', { name: 'Cost cap not enforced' })).toBeVisible()
  await screenshot(decomposer, 'budget-paused')
  expect(splitsOf(mockLlm, 'Plan a vegetable garden')).toBe(1)

  // paused: a new goal gets no LLM call from this tab
  await submitGoal(decomposer, 'Plan a birthday picnic', 1)
  await expect(
    decomposer.getByRole('heading', { name: 'Plan a birthday picnic', level: 2 }),
  ).toBeVisible()
  await decomposer.waitForTimeout(5_000)
  expect(splitsOf(mockLlm, 'Plan a birthday picnic')).toBe(0)

  // the notice's button raises the cap; the role resumes and splits the waiting goal
  await notice.getByRole('button', { name: /^Raise to [\d,]+ tokens per hour$/ }).click()
  await expect(notice).toHaveCount(0, { timeout: 10_000 })
  await expect.poll(() => splitsOf(mockLlm, 'Plan a birthday picnic'), { timeout: 30_000 }).toBe(1)
  // the raised cap is saved for this browser
  const saved = await decomposer.evaluate(() => localStorage.getItem('murmuration:budget'))
  expect(JSON.parse(saved ?? '{}').tokensPerHour).toBeGreaterThan(100)
})

test('a tab set to only this browser’s tabs never works on a goal from another browser', async ({
  browse,
  room,
  mockLlm,
}) => {
  test.setTimeout(180_000)
  const mine = await browse.machine('mine')
  const decomposer = await browse.tab(mine, 'decomposer')
  await pickRole(decomposer, room, 'decomposer')
  await useMock(decomposer, mockLlm)
  await setLimits(decomposer, async () => {
    await decomposer.getByLabel('only this browser’s tabs').check()
  })
  // another tab of the same browser, and a tab in another browser (another person)
  const sibling = await browse.tab(mine, 'sibling')
  await pickRole(sibling, room, 'scorer')
  const other = await browse.machine('other')
  const stranger = await browse.tab(other, 'stranger')
  await pickRole(stranger, room, 'scorer')
  await waitForPeers(decomposer, 2)
  await waitForPeers(stranger, 2)

  await submitGoal(stranger, 'Their goal: plan a marathon', 1)
  await expect(
    decomposer.getByRole('heading', { name: 'Their goal: plan a marathon', level: 2 }),
  ).toBeVisible({ timeout: 30_000 })
  await submitGoal(sibling, 'Our goal: plan a reading list', 1)
  // this browser's other tab's goal is split (so the decomposer is working and hears goals) …
  await expect
    .poll(() => splitsOf(mockLlm, 'Our goal: plan a reading list'), { timeout: 60_000 })
    .toBeGreaterThanOrEqual(1)
  // … and the other browser's goal, heard first, never is
  await decomposer.waitForTimeout(8_000)
  expect(splitsOf(mockLlm, 'Their goal: plan a marathon')).toBe(0)
  // the setting is remembered for this browser
  expect(await decomposer.evaluate(() => localStorage.getItem('murmuration:goals-from'))).toBe(
    'this-browser',
  )
})
