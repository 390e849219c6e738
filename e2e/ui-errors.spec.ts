/**
 * When the role's LLM fails, the person sees why next to the role panel, and
 * the message goes away once the role works again.
 */
import { MOCK_KEY, expect, screenshot, test } from './fixtures/ui-app'
import { pickRole, submitGoal, useModel } from './fixtures/ui-steps'

/** the role waits this long after a failing provider before trying again (HEALTH_RETRY_MS), plus slack */
const RECOVERY_TIMEOUT_MS = 75_000

test('a rejected key shows an alert by the role panel, and it clears when the role recovers', async ({
  browse,
  room,
  mockLlm,
}) => {
  test.setTimeout(RECOVERY_TIMEOUT_MS + 90_000)
  const machine = await browse.machine('mine')
  const decomposer = await browse.tab(machine, 'decomposer')
  await pickRole(decomposer, room, 'decomposer')
  await useModel(decomposer, {
    provider: 'OpenAI-compatible server',
    model: 'mock-model',
    baseUrl: `${mockLlm.url}/v1`,
    key: 'sk-this-key-is-wrong',
  })
  const alert = decomposer.getByRole('alert').filter({ hasText: 'The API key was rejected.' })
  await expect(alert).toHaveCount(0)

  await submitGoal(decomposer, 'Write a packing list for a weekend hike', 1)
  await expect(alert).toBeVisible({ timeout: 30_000 })
  await expect(alert).toContainText('Model settings')
  await expect(decomposer.getByText('failing', { exact: true })).toBeVisible()
  // where the person is looking: inside the role panel, above its work
  const panel = decomposer.getByRole('region', { name: 'This tab: decomposer' })
  await expect(panel.getByRole('alert').filter({ hasText: 'rejected' })).toBeVisible()
  await screenshot(decomposer, 'decomposer-bad-key-desktop')
  expect(mockLlm.requests.some((r) => r.status === 401)).toBe(true)

  // the person fixes the key; the alert goes once the role is back, and the role works again
  await useModel(decomposer, { provider: 'OpenAI-compatible server', key: MOCK_KEY })
  await expect(alert).toHaveCount(0, { timeout: RECOVERY_TIMEOUT_MS })
  await expect(decomposer.getByText('working', { exact: true })).toBeVisible()
  // (the goal it failed on stays failed for this decomposer: it published a failure notice)
  await submitGoal(decomposer, 'Plan a picnic for six people', 1)
  await expect(decomposer.getByRole('heading', { name: /^Your proposals \([1-9]/ })).toBeVisible({
    timeout: 30_000,
  })
  await expect(alert).toHaveCount(0)
  expect(mockLlm.requests.some((r) => r.status === 200 && r.taskKind === 'decompose')).toBe(true)
})
