/**
 * A tab's executor brings its own tools (issue 57), in real Chromium: Alice
 * (Guest 1), invited into Bob's room, connects the reference memory MCP server over
 * Streamable HTTP on 127.0.0.1 from her executor's settings (a server
 * without CORS headers is refused by the browser first, and the tab says why
 * and what the server needs). Every tool is off until she picks who may use
 * it. Bob's goal that cues search_nodes ends with a final plan holding what
 * the server keeps (made up by the test), with the call in the leaf's steps
 * and in Alice's call inspector; Bob's goal that cues delete_entities (kept
 * for Alice's own goals) waits for her in her tab, and refused, changes
 * nothing on disk.
 */
import AxeBuilder from '@axe-core/playwright'
import type { Page } from '@playwright/test'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serverEntry, startMcpHttpBridge, type McpHttpBridge } from '../test/mcp/http-bridge'
import { FRIEND_KEY, expect, screenshot, test } from './fixtures/ui-app'
import { expectJoined, submitGoal, useModel, waitForPeers } from './fixtures/ui-steps'

/** Offline planners and one executor on 2 cores: a plan of a few leaves. */
const DONE_TIMEOUT_MS = 60_000

/** The owner opens the Invite panel, invites a first guest and reads their own link. */
async function invite(owner: Page): Promise<string> {
  await owner.getByRole('button', { name: 'Invite', exact: true }).click()
  await owner.getByRole('button', { name: 'Invite someone' }).click()
  await expect(owner.getByText('A new link for Guest 1:')).toBeVisible()
  const link = await owner.getByRole('textbox', { name: /^Share link/ }).inputValue()
  await owner.getByRole('button', { name: 'Invite', exact: true }).click()
  return link
}

const goalStatus = (page: Page, text: string) =>
  page.evaluate(
    (t) => window.murmuration!.tree().goals.find((g) => g.text === t)?.status ?? null,
    text,
  )

test('a tab’s MCP server: what it keeps reaches the plan; another member’s delete waits and, refused, changes nothing', async ({
  browse,
  room,
  mockLlm,
  app,
}) => {
  test.setTimeout(150_000)
  const dir = await mkdtemp(join(tmpdir(), 'murmuration-e2e-mcp-'))
  const memory = join(dir, 'memory.jsonl')
  const secret = `gate code ${randomBytes(9).toString('base64url')}`
  await writeFile(
    memory,
    JSON.stringify({ type: 'entity', name: 'Garden', entityType: 'place', observations: [secret] }),
  )
  const server = { command: process.execPath, args: [serverEntry('server-memory')] }
  const bridges: McpHttpBridge[] = []
  try {
    const withCors = await startMcpHttpBridge({ ...server, env: { MEMORY_FILE_PATH: memory } })
    const noCors = await startMcpHttpBridge({
      ...server,
      env: { MEMORY_FILE_PATH: join(dir, 'other.jsonl') },
      cors: false,
    })
    bridges.push(withCors, noCors)

    // Bob owns the room: his planners on the built-in offline model, and an observer
    const bobs = await browse.machine('bob')
    const decomposer = await browse.tab(bobs, 'decomposer', room.link(app.origin, 'decomposer'))
    await expectJoined(decomposer, 'decomposer')
    const planners = [decomposer]
    for (const name of ['scorer', 'scorer-2'] as const) {
      const page = await browse.tab(bobs, name, room.link(app.origin, 'scorer'))
      await expectJoined(page, 'scorer')
      planners.push(page)
    }
    const observer = await browse.tab(bobs, 'observer', room.link(app.origin, 'observer'))
    await expectJoined(observer, 'observer')

    // Alice, invited, brings an executor with her own (mock) model
    const alice = await browse.tab(await browse.machine('alice'), 'alice', await invite(decomposer))
    await expectJoined(alice, 'executor')
    await useModel(alice, {
      provider: 'Anthropic',
      model: 'claude-haiku-4-5',
      baseUrl: `${mockLlm.url}/v1`,
      key: FRIEND_KEY,
    })
    await waitForPeers(observer, 4)

    // her tools: a server that sends no CORS headers is refused by the browser, and the tab says so
    await alice.locator('summary', { hasText: 'Your tools (MCP servers)' }).click()
    const tools = alice.getByRole('region', { name: 'Your MCP servers' })
    await tools.getByLabel('Server address').fill(noCors.url)
    await tools.getByRole('button', { name: 'Connect' }).click()
    const refused = tools.getByRole('region', { name: /^MCP server / })
    await expect(refused.getByRole('alert')).toContainText(
      `the server at ${noCors.url} answers, but does not let this page (${app.origin}) use it`,
    )
    await expect(refused.getByRole('alert')).toContainText(
      'Access-Control-Expose-Headers: mcp-session-id',
    )
    await refused.getByRole('button', { name: 'Remove' }).click()
    await expect(refused).toHaveCount(0)

    // the server that allows the page: its tools, all off until she chooses
    await tools.getByLabel('Server address').fill(withCors.url)
    await tools.getByRole('button', { name: 'Connect' }).click()
    const memoryServer = tools.getByRole('region', { name: 'MCP server memory-server' })
    await expect(memoryServer.getByText('connected')).toBeVisible()
    const who = (tool: string) => memoryServer.getByLabel(`Who may use memory-server/${tool}`)
    await expect(who('search_nodes')).toHaveValue('off')
    await expect(who('delete_entities')).toHaveValue('off')
    await who('search_nodes').selectOption('anyone')
    await who('delete_entities').selectOption('own')
    await screenshot(alice, 'mcp-tools')
    // the URL stays in her browser; the room hears the group, the tool names and for whom
    const roster = observer.getByRole('region', { name: 'Who is in this room' })
    await expect(roster).toContainText('memory-server')
    await expect(roster).toContainText('delete_entities (writes) (asks its person)')
    await expect(roster).not.toContainText(withCors.url)
    for (const page of planners)
      await expect
        .poll(() =>
          page.evaluate(() =>
            window
              .murmuration!.activity()
              .swarm.some((m) => m.tools?.some((g) => g.name === 'memory-server')),
          ),
        )
        .toBe(true)

    // Bob's goal that cues a read-only tool: the plan holds what the server keeps
    const recall = 'Recall the garden search_nodes {"query": "Garden"}'
    await submitGoal(decomposer, recall, 1)
    await expect.poll(() => goalStatus(observer, recall), { timeout: DONE_TIMEOUT_MS }).toBe('done')
    await expect(
      observer.getByRole('region', { name: recall }).getByText(secret).first(),
    ).toBeVisible()
    const leaf = await observer.evaluate(
      (t) =>
        window
          .murmuration!.tree()
          .goals.find((g) => g.text === t)!
          .slots.find((s) => s.tool !== null)!,
      recall,
    )
    expect(leaf.tool).toBe('memory-server')
    expect(leaf.leaf!.steps).toContainEqual(
      expect.objectContaining({
        type: 'tool',
        group: 'memory-server',
        name: 'search_nodes',
        status: 'ok',
      }),
    )
    expect(withCors.calls).toContain('search_nodes')
    // Alice's call inspector has the call: tool, arguments, result, time
    await alice.getByRole('button', { name: /^Model calls/ }).click()
    const inspector = alice.getByRole('dialog', { name: 'Model calls of this tab' })
    await inspector
      .locator('summary', { hasText: /1 tool call/ })
      .first()
      .click()
    const call = inspector.getByRole('listitem', {
      name: 'Tool call 1: memory-server/search_nodes',
    })
    await expect(call).toContainText('{"query":"Garden"}')
    await expect(call).toContainText(secret)
    await expect(call).toContainText('answered')
    await inspector.getByRole('button', { name: 'Close' }).click()

    // Bob's goal that cues a tool Alice keeps for her own goals: it waits for her …
    const before = await readFile(memory, 'utf8')
    const forget = 'Forget the garden delete_entities {"entityNames": ["Garden"]}'
    await submitGoal(decomposer, forget, 1)
    const approval = alice.getByRole('listitem', {
      name: 'Tool call memory-server/delete_entities waiting for approval',
    })
    await expect(approval).toBeVisible({ timeout: DONE_TIMEOUT_MS })
    await expect(approval).toContainText(`The goal “${forget}” asks to run`)
    await expect(approval).toContainText('{"entityNames":["Garden"]}')
    await screenshot(alice, 'mcp-approval')
    // the servers panel and the approval, as everything else, pass axe (as e2e/a11y.spec.ts runs it)
    const axe = await new AxeBuilder({ page: alice })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
      .analyze()
    expect(
      axe.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`)),
    ).toEqual([])
    // … and refused, the tool never runs: the server's file is as it was
    await approval.getByRole('button', { name: 'Refuse' }).click()
    await expect(approval).toHaveCount(0)
    await expect.poll(() => goalStatus(observer, forget), { timeout: DONE_TIMEOUT_MS }).toBe('done')
    expect(withCors.calls).not.toContain('delete_entities')
    expect(await readFile(memory, 'utf8')).toBe(before)
    const refusedStep = await observer.evaluate(
      (t) =>
        window
          .murmuration!.tree()
          .goals.find((g) => g.text === t)!
          .slots.find((s) => s.tool !== null)!
          .leaf!.steps!.find((s) => s.type === 'tool'),
      forget,
    )
    expect(refusedStep).toMatchObject({ name: 'delete_entities', status: 'refused' })
  } finally {
    await Promise.all(bridges.map((b) => b.close()))
    await rm(dir, { recursive: true, force: true })
  }
})
