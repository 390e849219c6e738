/**
 * What a tab says of its model is about the model it uses now (issue 56):
 * an executor that worked, switched to a key the provider rejects, shows no
 * green badge beside the check's "Wrong API key", claims nothing with that
 * key however long it waits (it used to claim a task every 30 s), and the
 * room sees it as not working; fixed, it works again at once. Real tabs,
 * the mock LLM. A key revoked while it works stops it at its first failed
 * call in the same way.
 */
import type { Page } from '@playwright/test'
import type { GoalView, PlanTree } from '../src/plan/tree'
import { FRIEND_KEY, MOCK_KEY, expect, screenshot, test } from './fixtures/ui-app'
import { mockModel, openModelTabs, submitGoal, useModel, waitForPeers } from './fixtures/ui-steps'

const FIRST = 'Plan a reading corner'
const SECOND = 'Plan a tool shed'
const THIRD = 'Plan a rain barrel'
const WRONG_KEY = 'sk-murmuration-e2e-revoked-0000000000'
/** Tabs of one test share 2 cores: a round of a one-level plan takes some seconds. */
const ROUND_TIMEOUT_MS = 60_000
/** Longer than the 30 s after which a rate-limited role tries again (HEALTH_RETRY_MS), with room to spare. */
const WAIT_PAST_RETRY_MS = 40_000

const treeOf = (page: Page): Promise<PlanTree> => page.evaluate(() => window.murmuration!.tree())
async function goalOf(page: Page, text: string): Promise<GoalView | undefined> {
  return (await treeOf(page)).goals.find((g) => g.text === text)
}

async function waitForStatus(page: Page, text: string, status: GoalView['status']) {
  await expect
    .poll(async () => (await goalOf(page, text))?.status, {
      timeout: ROUND_TIMEOUT_MS,
      intervals: [250],
    })
    .toBe(status)
}

test('a switch to a rejected key: no green badge, no claim, the room told; fixed, it works again', async ({
  browse,
  room,
  mockLlm,
  app,
}) => {
  test.setTimeout(300_000)
  mockLlm.setBehaviour({ mode: 'shape', branching: 2, capability: 'can_write_text' })
  const mock = mockModel(mockLlm.url)
  const mine = await browse.machine('mine')
  const tabs = await openModelTabs(
    (name, role) => browse.tab(mine, name, room.link(app.origin, role)),
    [
      ['author', 'decomposer'],
      ['scorer', 'scorer'],
      ['scorer2', 'scorer'],
      ['executor', 'executor'],
    ],
    mock,
  )
  const { author, executor } = tabs as Record<string, Page>
  await waitForPeers(author!, 3)
  const panel = executor!.getByRole('region', { name: 'This tab: executor' })
  const badge = (label: string) => panel.getByText(label, { exact: true })

  await test.step('the executor works: its last call was OK', async () => {
    await submitGoal(author!, FIRST, 1)
    await waitForStatus(author!, FIRST, 'done')
    await expect(badge('last call OK')).toBeVisible()
  })

  // every request the executor's tasks made with the rejected key (a check is no task)
  const executeWithWrongKey = () =>
    mockLlm.requests.filter(
      (r) =>
        r.taskKind !== undefined &&
        r.status === 401 &&
        JSON.stringify(r.headers).includes(WRONG_KEY),
    )
  const checksWithWrongKey = () =>
    mockLlm.requests.filter(
      (r) =>
        r.taskKind === undefined &&
        r.status === 401 &&
        JSON.stringify(r.headers).includes(WRONG_KEY),
    )

  await test.step('switched to a rejected key: the check says so, and nothing is green', async () => {
    await useModel(executor!, { ...mock, key: WRONG_KEY })
    await expect(executor!.locator('[data-check]')).toContainText('Wrong API key')
    await expect(badge('not working')).toBeVisible()
    await expect(badge('last call OK')).toHaveCount(0)
    await expect(badge('check OK')).toHaveCount(0)
    await expect(
      executor!.getByText('This tab takes no new work until its model works'),
    ).toBeVisible()
    // the room hears it: its beats say it cannot work
    await expect(author!.getByText('1 executor is not working now')).toBeVisible()
  })

  await test.step('a new goal waits: no claim with the rejected key, however long', async () => {
    await submitGoal(author!, SECOND, 1)
    await expect
      .poll(async () => (await goalOf(author!, SECOND))?.status, { timeout: ROUND_TIMEOUT_MS })
      .toBe('accepted')
    await executor!.waitForTimeout(WAIT_PAST_RETRY_MS)
    const goal = (await goalOf(author!, SECOND))!
    expect(goal.slots.map((slot) => slot.leaf?.holder ?? null)).toEqual([null, null])
    expect(executeWithWrongKey()).toEqual([])
    // it was checked again meanwhile, without a task (and still refused)
    expect(checksWithWrongKey().length).toBeGreaterThanOrEqual(2)
    // the waiting leaves say why, in every tab
    await author!.getByRole('treeitem', { name: new RegExp(`^${SECOND}`) }).click()
    await expect(
      author!.getByText('Waiting: no working executor offers writing').first(),
    ).toBeVisible()
    await expect(badge('not working')).toBeVisible()
    await screenshot(executor!, 'executor-rejected-key')
  })

  await test.step('fixed: it works again at once, and the waiting goal finishes', async () => {
    // another key the provider accepts
    await useModel(executor!, { ...mock, key: FRIEND_KEY })
    await expect(executor!.locator('[data-check]')).toContainText('Works')
    await expect(
      executor!.getByText('This tab takes no new work until its model works'),
    ).toHaveCount(0)
    await waitForStatus(author!, SECOND, 'done')
    await expect(badge('last call OK')).toBeVisible()
    await expect(author!.getByText('1 executor is not working now')).toHaveCount(0)
    expect(executeWithWrongKey()).toEqual([])
  })

  await test.step('its key revoked at the provider: the first call that fails stops it, and the check says why', async () => {
    mockLlm.setBehaviour({ keys: [MOCK_KEY] })
    const rejected = () =>
      mockLlm.requests.filter(
        (r) =>
          r.taskKind === 'execute' &&
          r.status === 401 &&
          JSON.stringify(r.headers).includes(FRIEND_KEY),
      ).length
    await submitGoal(author!, THIRD, 1)
    await expect.poll(rejected, { timeout: ROUND_TIMEOUT_MS }).toBeGreaterThan(0)
    await expect(badge('not working')).toBeVisible()
    await expect(badge('last call OK')).toHaveCount(0)
    // the call broke what the last check said: the settings check again and say so
    await expect(executor!.locator('[data-check]')).toContainText('Wrong API key')
    const after = rejected()
    await executor!.waitForTimeout(WAIT_PAST_RETRY_MS)
    expect(rejected()).toBe(after)
  })
  expect(browse.pageErrors).toEqual([])
})
