/**
 * "Use this model" checks the model at once with one cheap call and names
 * what is wrong, before the role claims anything (issue 43, item 3): a dead
 * URL, a wrong key, an unknown model, a server without CORS, a server slow
 * because it loads the model, and, on a friend's plain-http page from a LAN
 * address, Chromium's Local Network Access refusal of their own localhost.
 * The LAN part runs two machines in network namespaces (fixtures/lan.ts)
 * and needs root.
 */
import type { Page, Request } from '@playwright/test'
import { startFakeLocalServer, type FakeLocalServer } from '../test/mock-llm/local-server'
import { requireRoot } from './fixtures/capabilities'
import { LAN_PREFIX } from './fixtures/lan'
import { APP_PORT, MOCK_LLM_PORT, startLanScene, type LanScene } from './fixtures/lan-app'
import { freePort } from './fixtures/ports'
import { testRoom } from './fixtures/rooms'
import { expect, FRIEND_KEY, MOCK_KEY, test } from './fixtures/ui-app'
import { expectJoined, pickRole, useModel } from './fixtures/ui-steps'

/** TEST-NET-3: an address Chromium counts as public, as a deployed app's would be */
const PUBLIC_PREFIX = '203.0.113'
/** The fake server "loads" the model past the check's 10 s (PROBE_SLOW_MS) before it answers. */
const LOAD_MS = 14_000

function check(page: Page) {
  return page.locator('[data-check]')
}

test.describe('the model check, on this machine', () => {
  const servers: FakeLocalServer[] = []
  test.afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()))
  })

  test('a dead URL, a wrong key, an unknown model, no CORS, a loading model: each named at once', async ({
    browse,
    room,
    mockLlm,
  }) => {
    test.setTimeout(120_000)
    const ollama = await startFakeLocalServer({
      kind: 'ollama',
      models: ['llama3.2:latest'],
      loadMs: LOAD_MS,
    })
    const noCors = await startFakeLocalServer({ kind: 'lmstudio', models: ['qwen'], cors: false })
    servers.push(ollama, noCors)
    const dead = await freePort()
    const page = await browse.tab(await browse.machine('me'), 'executor')
    await pickRole(page, room, 'executor')

    const compatible = (baseUrl: string, model: string) =>
      useModel(page, { provider: 'OpenAI-compatible server', model, baseUrl, key: '' })

    // nothing listens: unreachable
    await compatible(`http://127.0.0.1:${dead}/v1`, 'llama3.2')
    await expect(check(page)).toHaveAttribute('data-check', 'failed')
    await expect(check(page)).toContainText(`Nothing answers at http://127.0.0.1:${dead}`)

    // a wrong key: named as such, with the provider's status
    await useModel(page, {
      provider: 'Anthropic',
      model: 'claude-haiku-4-5',
      baseUrl: `${mockLlm.url}/v1`,
      key: 'sk-ant-wrong',
    })
    await expect(check(page)).toContainText(`Wrong API key: ${mockLlm.url} rejected it (401)`)

    // a model the server does not have
    await compatible(`${ollama.url}/v1`, 'llama9')
    await expect(check(page)).toContainText(
      `Unknown model: ${ollama.url} has no model “llama9” (404)`,
    )

    // a server that answers without CORS headers (LM Studio before "Enable CORS")
    await compatible(`${noCors.url}/v1`, 'qwen')
    await expect(check(page)).toContainText('does not allow requests from this page (CORS)')
    await expect(check(page)).toContainText('Enable CORS')
    // the no-cors request reached it: it was up, only CORS refused the answer
    expect(noCors.requests.filter((r) => r === 'GET /v1/models').length).toBeGreaterThan(0)

    // the first call of a model that loads: shown as loading, then as working
    await compatible(`${ollama.url}/v1`, 'llama3.2:latest')
    await expect(check(page)).toHaveAttribute('data-check', 'checking')
    await expect(check(page)).not.toHaveClass(/tone-good/)
    await expect(check(page)).toContainText('a local server may be loading the model', {
      timeout: 15_000,
    })
    await expect(check(page)).toHaveAttribute('data-check', 'slow')
    await expect(check(page)).toHaveClass(/tone-busy/)
    await expect(check(page)).toContainText(/Works \(answered in 1[3-9]\.\d s\)/, {
      timeout: 30_000,
    })
    await expect(check(page)).toHaveClass(/tone-good/)

    // the right key: works, in well under a second from the mock
    await useModel(page, {
      provider: 'Anthropic',
      model: 'claude-haiku-4-5',
      baseUrl: `${mockLlm.url}/v1`,
      key: MOCK_KEY,
    })
    await expect(check(page)).toContainText(/Works \(answered in \d+\.\d s\)/)

    // every call so far was a check: the role claimed and ran nothing
    expect(mockLlm.requests.filter((r) => r.taskKind !== undefined)).toEqual([])
    expect(browse.pageErrors).toEqual([])
  })
})

/** Opens the room's executor link on the friend's machine; records what the page asked of loopback. */
async function friendTab(scene: LanScene, prefix: string, name: string, scheme = 'http') {
  const link = testRoom(name).link(`${scheme}://${prefix}.1:${APP_PORT}`, 'executor')
  const page = await scene.tab(scene.friend, link)
  const toLoopback: string[] = []
  page.on('request', (r: Request) => {
    if (/^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(r.url())) toLoopback.push(r.url())
  })
  expect(await page.evaluate(() => isSecureContext)).toBe(scheme === 'https')
  await expectJoined(page, 'executor')
  return { page, toLoopback }
}

async function useFriendServer(page: Page, baseUrl: string) {
  await useModel(page, {
    provider: 'OpenAI-compatible server',
    model: 'mock-model',
    baseUrl,
    key: FRIEND_KEY,
  })
}

test.describe('the model check, on a friend’s machine', () => {
  // namespaces need root: skipped with one line without it, failed under CI
  requireRoot(test, { needs: ['netns'] })
  test.describe.configure({ mode: 'serial' })

  test.describe('the app on a LAN address', () => {
    let scene: LanScene
    test.beforeAll(async ({ playwright }) => {
      test.setTimeout(180_000)
      scene = await startLanScene(playwright.chromium, false)
    })
    test.afterAll(async () => scene?.close())

    test('their own localhost answers (Chromium 156 lets a LAN page through); nobody there is named with the browser as a possible cause', async () => {
      test.setTimeout(120_000)
      const { page, toLoopback } = await friendTab(scene, LAN_PREFIX, 'lna-lan')
      await useFriendServer(page, `http://127.0.0.1:${MOCK_LLM_PORT}/v1`)
      // the settings of a server say what the browser may do to its calls
      await expect(page.getByText('its calls to a server on your own computer')).toBeVisible()
      await expect(check(page)).toContainText(/Works \(answered in \d+\.\d s\)/)
      // the mock writes its log on a timer
      await expect
        .poll(() => scene.friendRequests().map((r) => `${r.path} ${r.status}`))
        .toEqual(['/v1/chat/completions 200'])

      await useFriendServer(page, 'http://localhost:9/v1')
      await expect(check(page)).toContainText(
        'Nothing answers at http://localhost:9 from this page',
      )
      await expect(check(page)).toContainText('Local Network Access')
      await expect(check(page)).toContainText('open the room’s link over https')

      // no discovery of local servers from a page of another machine: only the checks
      // (and the no-cors request that tells a refusal from CORS) went to loopback
      expect(toLoopback).toEqual([
        `http://127.0.0.1:${MOCK_LLM_PORT}/v1/chat/completions`,
        'http://localhost:9/v1/chat/completions',
        'http://localhost:9/v1/models',
      ])
    })
  })

  test.describe('the app on a public address', () => {
    let scene: LanScene
    test.beforeAll(async ({ playwright }) => {
      test.setTimeout(180_000)
      scene = await startLanScene(playwright.chromium, false, PUBLIC_PREFIX)
    })
    test.afterAll(async () => scene?.close())

    test('their own localhost is refused by Local Network Access, and said so before any claim', async () => {
      test.setTimeout(120_000)
      const { page, toLoopback } = await friendTab(scene, PUBLIC_PREFIX, 'lna-public')
      for (const host of ['127.0.0.1', 'localhost']) {
        await useFriendServer(page, `http://${host}:${MOCK_LLM_PORT}/v1`)
        await expect(check(page)).toContainText(
          `This browser blocks this page from reaching http://${host}:${MOCK_LLM_PORT} (Local Network Access)`,
        )
        await expect(check(page)).toContainText('open the room’s link over https')
        await expect(check(page)).toContainText('npm run agent')
      }
      // the browser refused before sending: the friend's server saw nothing
      expect(scene.friendRequests()).toEqual([])
      expect(toLoopback).toEqual([
        `http://127.0.0.1:${MOCK_LLM_PORT}/v1/chat/completions`,
        `http://localhost:${MOCK_LLM_PORT}/v1/chat/completions`,
      ])
      // a reload checks the saved settings at once
      await page.reload()
      await expectJoined(page, 'executor')
      await expect(check(page)).toContainText('(Local Network Access)')
    })
  })

  test.describe('the app on a public address, over https', () => {
    let scene: LanScene
    test.beforeAll(async ({ playwright }) => {
      test.setTimeout(180_000)
      scene = await startLanScene(playwright.chromium, true, PUBLIC_PREFIX)
    })
    test.afterAll(async () => scene?.close())

    test('their localhost needs the local network permission; once allowed, it works', async () => {
      test.setTimeout(120_000)
      const { page } = await friendTab(scene, PUBLIC_PREFIX, 'lna-https', 'https')
      const base = `http://127.0.0.1:${MOCK_LLM_PORT}/v1`
      // headless Chromium answers the permission prompt with "no"
      await useFriendServer(page, base)
      await expect(check(page)).toContainText(
        `The browser did not let this page reach http://127.0.0.1:${MOCK_LLM_PORT}: local network access is not allowed`,
      )
      expect(scene.friendRequests()).toEqual([])
      // the person allows it, as the advice says: the same settings work
      await scene.friend.grantPermissions(['local-network-access'], {
        origin: `https://${PUBLIC_PREFIX}.1:${APP_PORT}`,
      })
      await useFriendServer(page, base)
      await expect(check(page)).toContainText(/Works \(answered in \d+\.\d s\)/)
    })
  })
})
