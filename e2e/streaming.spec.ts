/**
 * Answers stream in as written (issue 27), in real Chromium tabs with the
 * mock LLM streaming the OpenAI-compatible wire format (Chat Completions
 * server-sent events): one executor tab uses the mock; the decomposer and two
 * scorers run the built-in offline model. The mock holds every streamed reply
 * halfway, so the test sees, while the call is surely still running:
 * - the executing tab shows the leaf's text so far, which is the start of
 *   what the mock is sending;
 * - another tab shows that leaf as being written, and by whom (from the
 *   claim and the executor's presence beat: no text leaves the executor).
 * Released, the plan finishes; the executor's call inspector shows the exact
 * request the mock got (the system prompt with the JSON Schema that text
 * mode adds, and the prompt) and the reply it streamed, joined.
 */
import type { Page } from '@playwright/test'
import type { MockRequestLog } from '../test/mock-llm/server'
import { parseOpenAi } from '../test/mock-llm/wire'
import { MOCK_KEY, expect, screenshot, test } from './fixtures/ui-app'
import { allowTools, expectJoined, submitGoal, useModel, waitForPeers } from './fixtures/ui-steps'

const GOAL = 'Plan a picnic in the park for six friends'

/** The deliverable in a text-mode reply: the `output` of the fenced JSON object. */
function outputOf(replyText: string): string {
  const json = /```json\n([\s\S]*)\n```/.exec(replyText)?.[1] ?? '{}'
  return (JSON.parse(json) as { output: string }).output
}

function streamedExecutes(requests: MockRequestLog[]): MockRequestLog[] {
  return requests.filter((r) => r.taskKind === 'execute' && r.streamed === true)
}

test('a leaf’s text streams into the executing tab before the call ends; others see it being written', async ({
  browse,
  room,
  mockLlm,
  app,
}) => {
  test.setTimeout(120_000)
  const started = Date.now()
  const mark = (what: string) =>
    console.log(`streaming e2e: ${what} at ${((Date.now() - started) / 1000).toFixed(1)} s`)
  const mine = await browse.machine('mine')
  const tabs: Record<string, Page> = {}
  for (const [name, role] of [
    ['decomposer', 'decomposer'],
    ['scorer', 'scorer'],
    ['scorer-2', 'scorer'],
    ['executor', 'executor'],
  ] as const) {
    tabs[name] = await browse.tab(mine, name, room.link(app.origin, role))
    await expectJoined(tabs[name], role)
  }
  const { decomposer, executor } = tabs as Record<'decomposer' | 'executor', Page>
  await useModel(executor, {
    provider: 'OpenAI-compatible server',
    model: 'mock-model',
    baseUrl: `${mockLlm.url}/v1`,
    key: MOCK_KEY,
  })
  // the offline split may have code and live-data leaves: the executor's person allows them
  await allowTools(executor, { code: true, knowledge: true })
  await waitForPeers(decomposer, 3)

  mark('tabs ready')
  const release = mockLlm.holdStream()
  await submitGoal(decomposer, GOAL, 1)

  // the executor tab: its leaf is being written by "you", and its text so far is on screen
  const mineRow = executor.getByRole('treeitem', { name: /Writing… \(you\)/ }).first()
  await expect(mineRow).toBeVisible({ timeout: 60_000 })
  mark('writing in the executor')
  await expect.poll(() => streamedExecutes(mockLlm.requests).length).toBeGreaterThan(0)
  const held = streamedExecutes(mockLlm.requests)[0]!
  // the held call's task line, as its prompt carries it (verbatim between marked tags)
  const taskLine = /<task-([a-z0-9]+) [^>]*>[^\n]*?<\/task-\1>/.exec(
    parseOpenAi(held.body as Record<string, unknown>).prompt,
  )![0]
  await mineRow.click()
  const live = executor.getByRole('region', { name: 'Result being written' })
  await expect(live).toBeVisible()
  const soFar = live.getByLabel('Result so far')
  await expect(soFar).not.toBeEmpty()
  const shown = await soFar.innerText()
  await screenshot(executor, 'streaming-executor')

  // another tab: the same leaf, as being written by the executor (its claim and presence)
  const executorId = await executor.evaluate(() => window.murmuration!.peerId)
  const theirs = decomposer.getByRole('treeitem', {
    name: new RegExp(`Writing… \\(…${executorId.slice(-6)}\\)`),
  })
  await expect(theirs.first()).toBeVisible()
  await theirs.first().click()
  await expect(decomposer.locator('.node-detail')).toContainText('Being written by')
  await screenshot(decomposer, 'streaming-other-tab')

  // the call is still running: the mock has not finished the reply, the leaf has no result yet
  expect(held.status).toBe(200)
  expect(
    (await executor.evaluate(() => window.murmuration!.tree())).goals[0]!.slots.some(
      (s) => s.leaf?.status === 'claimed',
    ),
  ).toBe(true)
  const final = outputOf(held.replyText!)
  expect(final.startsWith(shown.trimEnd())).toBe(true)
  expect(shown.trimEnd().length).toBeLessThan(final.length)

  mark('seen in the other tab')
  release()
  await expect(decomposer.getByRole('heading', { name: 'Final plan' })).toBeVisible({
    timeout: 90_000,
  })

  mark('final plan')
  // the inspector of the executor: that call's request and reply, exactly as the mock had them
  const { system, prompt } = parseOpenAi(held.body as Record<string, unknown>)
  expect(system).toContain('matching this JSON Schema')
  await executor.getByRole('button', { name: /^Model calls \(\d+\)$/ }).click()
  const inspector = executor.getByRole('dialog', { name: 'Model calls of this tab' })
  await inspector.getByLabel('Task').selectOption('execute')
  const entry = inspector.getByRole('listitem').filter({ hasText: taskLine }).first()
  await entry.locator('summary').click()
  expect(await entry.locator('pre.system').textContent()).toBe(system)
  expect(await entry.locator('pre.prompt').first().textContent()).toBe(prompt)
  expect(await entry.locator('pre.reply').first().textContent()).toBe(held.replyText)
  console.log(`streaming e2e: ${((Date.now() - started) / 1000).toFixed(1)} s`)
})
