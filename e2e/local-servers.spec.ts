/**
 * A tab on this machine finds the local LLM servers by itself (issue 44,
 * item 3): Ollama (GET /api/tags), LM Studio and llama.cpp (GET /v1/models)
 * on their ports, asked once when the model settings open, and offers their
 * models; a click uses one, and the model check says it works. The servers
 * are fakes in front of the mock LLM (test/mock-llm/local-server.ts) on free
 * ports, handed to the page by the settings' test hook, so no real Ollama of
 * this machine is disturbed.
 */
import type { BrowserContext, Page } from '@playwright/test'
import { startFakeLocalServer, type FakeLocalServer } from '../test/mock-llm/local-server'
import { freePort } from './fixtures/ports'
import { expect, test } from './fixtures/ui-app'
import { pickRole } from './fixtures/ui-steps'

const PORTS_KEY = 'murmuration:local-server-ports'

async function withPorts(context: BrowserContext, ports: Record<string, number>): Promise<void> {
  await context.addInitScript(
    ([key, value]) => localStorage.setItem(key!, value!),
    [PORTS_KEY, JSON.stringify(ports)],
  )
}

function openSettings(page: Page) {
  return page.getByText('Model and API key').click()
}

test.describe('local model servers', () => {
  const servers: FakeLocalServer[] = []
  test.afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()))
  })

  test('Ollama, LM Studio and llama.cpp are found once the settings open, and one click uses a model', async ({
    browse,
    room,
  }) => {
    const ollama = await startFakeLocalServer({
      kind: 'ollama',
      models: ['llama3.2:latest', 'qwen3:8b'],
    })
    // LM Studio before its "Enable CORS" is on
    const lmstudio = await startFakeLocalServer({
      kind: 'lmstudio',
      models: ['qwen2.5-7b'],
      cors: false,
    })
    const llamacpp = await startFakeLocalServer({ kind: 'llamacpp', models: ['gemma-3-4b.gguf'] })
    servers.push(ollama, lmstudio, llamacpp)
    const me = await browse.machine('me')
    await withPorts(me, { ollama: ollama.port, lmstudio: lmstudio.port, llamacpp: llamacpp.port })
    const page = await browse.tab(me, 'executor')
    await pickRole(page, room, 'executor')
    // nothing asked before the settings open
    expect([...ollama.requests, ...lmstudio.requests, ...llamacpp.requests]).toEqual([])

    await openSettings(page)
    const found = page.getByRole('region', { name: 'On this computer' })
    await expect(found.getByLabel(`Ollama (port ${ollama.port})`)).toBeVisible()
    await expect(found.getByLabel(`Ollama (port ${ollama.port})`).locator('option')).toHaveText([
      'llama3.2:latest',
      'qwen3:8b',
    ])
    await expect(found.getByLabel(`llama.cpp server (port ${llamacpp.port})`)).toHaveValue(
      'gemma-3-4b.gguf',
    )
    await expect(found).toContainText(
      `LM Studio runs on port ${lmstudio.port} but does not let this page read its answers`,
    )
    expect(ollama.requests).toEqual(['GET /api/tags'])
    expect(llamacpp.requests).toEqual(['GET /v1/models'])

    // a model of Ollama's, with one click: the form is filled, the model used and checked
    await found.getByLabel(`Ollama (port ${ollama.port})`).selectOption('qwen3:8b')
    await found.getByRole('button', { name: 'Use this Ollama model' }).click()
    await expect(page.getByLabel('Provider')).toHaveValue('openai-compatible')
    await expect(page.getByLabel(/^Base URL/)).toHaveValue(`${ollama.url}/v1`)
    await expect(page.getByLabel('Model', { exact: true })).toHaveValue('qwen3:8b')
    await expect(page.getByRole('status').filter({ hasText: 'Now using' })).toContainText(
      'qwen3:8b',
    )
    await expect(page.locator('[data-check]')).toContainText(/Works \(answered in \d+\.\d s\)/)
    // the server's models are the name field's suggestions
    await expect(page.locator('#model-suggestions option')).toHaveCount(2)

    // closing and opening the settings again asks nobody again
    await openSettings(page)
    await openSettings(page)
    await expect(found).toBeVisible()
    expect(ollama.requests.filter((r) => r === 'GET /api/tags')).toHaveLength(1)
    expect(browse.pageErrors).toEqual([])
  })

  test('the app’s own port is not taken for a llama.cpp server', async ({ browse, room, app }) => {
    const appPort = Number(new URL(app.url).port)
    const [nobody1, nobody2] = [await freePort(), await freePort()]
    const me = await browse.machine('me')
    await withPorts(me, { ollama: nobody1, lmstudio: nobody2, llamacpp: appPort })
    const page = await browse.tab(me, 'executor')
    const asked: string[] = []
    page.on('request', (r) => asked.push(r.url()))
    await pickRole(page, room, 'executor')
    await openSettings(page)
    await expect(page.getByRole('region', { name: 'On this computer' })).toContainText(
      'No local model server answered on its usual port',
    )
    // the two other ports were asked; this app was not asked for a model list
    expect(asked).toContain(`http://127.0.0.1:${nobody1}/api/tags`)
    expect(asked).toContain(`http://127.0.0.1:${nobody2}/v1/models`)
    expect(asked.filter((u) => u.includes('/v1/models') && u.includes(`:${appPort}/`))).toEqual([])
  })
})
