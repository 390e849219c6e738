/**
 * When the role's LLM fails, the person sees why next to the role panel, and
 * the message goes away once the role works again.
 */
import { MOCK_KEY, expect, screenshot, test } from './fixtures/ui-app'
import { pickRole, submitGoal, useModel } from './fixtures/ui-steps'

test('a rejected key shows an alert by the role panel, and it clears when the role recovers', async ({
  browse,
  room,
  mockLlm,
}) => {
  test.setTimeout(120_000)
  const machine = await browse.machine('mine')
  const decomposer = await browse.tab(machine, 'decomposer')
  await pickRole(decomposer, room, 'decomposer')
  await useModel(decomposer, {
    provider: 'OpenAI-compatible server',
    model: 'mock-model',
    baseUrl: `${mockLlm.url}/v1`,
    key: 'sk-this-key-is-wrong',
  })
  // (no check that the alert is absent before a task: a tab's model check may
  // already have found the key rejected, and saying so at once is true)
  const alert = decomposer.getByRole('alert').filter({ hasText: 'The API key was rejected.' })

  await submitGoal(decomposer, 'Write a packing list for a weekend hike', 1)
  await expect(alert).toBeVisible({ timeout: 30_000 })
  await expect(alert).toContainText('model settings')
  await expect(decomposer.getByText('not working', { exact: true })).toBeVisible()
  // where the person is looking: right above the role panel on a wide screen …
  await decomposer.evaluate(() => window.scrollTo(0, 0))
  const panel = decomposer.getByRole('region', { name: 'This tab: decomposer' })
  const alertBox = (await alert.boundingBox())!
  const panelBox = (await panel.boundingBox())!
  expect(alertBox.y + alertBox.height).toBeLessThanOrEqual(panelBox.y)
  expect(Math.abs(alertBox.x - panelBox.x)).toBeLessThan(2)
  await expect(alert).toBeInViewport()
  await screenshot(decomposer, 'decomposer-bad-key-desktop')
  // … and first thing on a phone, above the plan
  await decomposer.setViewportSize({ width: 390, height: 844 })
  await decomposer.evaluate(() => window.scrollTo(0, 0))
  await expect(alert).toBeInViewport()
  const plan = decomposer.getByRole('heading', {
    level: 2,
    name: 'Write a packing list for a weekend hike',
  })
  expect((await alert.boundingBox())!.y).toBeLessThan((await plan.boundingBox())!.y)
  await screenshot(decomposer, 'decomposer-bad-key-phone')
  await decomposer.setViewportSize({ width: 1280, height: 800 })
  expect(mockLlm.requests.some((r) => r.status === 401)).toBe(true)

  // the person follows the alert to the settings and fixes the key; the alert goes once the
  // role is back, and the role works again
  await decomposer.getByText('Model and API key').click() // closes them: the alert reopens them
  await alert.getByRole('button', { name: 'Open model settings' }).click()
  await expect(decomposer.getByLabel('Provider')).toBeFocused()
  await useModel(decomposer, { provider: 'OpenAI-compatible server', key: MOCK_KEY })
  // a new model is tried at once (no waiting out the retry pause), on the goal it failed
  await expect(alert).toHaveCount(0)
  await expect(decomposer.getByText('last call OK', { exact: true })).toBeVisible()
  await expect(decomposer.getByRole('heading', { name: /^Your proposals \([1-9]/ })).toBeVisible({
    timeout: 30_000,
  })
  await expect(
    decomposer.getByText('Write a packing list for a weekend hike').first(),
  ).toBeVisible()
  await expect(alert).toHaveCount(0)
  expect(mockLlm.requests.some((r) => r.status === 200 && r.taskKind === 'decompose')).toBe(true)
})
