/**
 * A friend at home joins (issue 26: invite a friend anywhere). Five network
 * namespaces (fixtures/nat.ts): the app, the relay and coturn on a public
 * host; the host's Chromium behind one home router, the friend's behind
 * another. The friend opens the share link, gets short-lived TURN
 * credentials from the app, links to the host's tabs through TURN when the
 * routers leave no direct way, through the NATs when they do, and does the
 * plan's work with its own key.
 */
import type { Page } from '@playwright/test'
import { requireRoot } from './fixtures/capabilities'
import { SERVER_IP } from './fixtures/nat'
import { APP_PORT } from './fixtures/lan-app'
import { startNatScene, TURN_SECRET, type NatScene } from './fixtures/nat-app'
import { describeLink, testRoom, type TestRoom } from './fixtures/rooms'
import { expect, FRIEND_KEY } from './fixtures/ui-app'
import {
  allowTools,
  expectJoined,
  leavesDone,
  peerCount,
  pickRole,
  readShareLink,
  submitGoal,
  useModel,
  waitForPeers,
} from './fixtures/ui-steps'
import { test } from './fixtures/workers'

const GOAL = 'Plan a two-week trip to Japan'
const HOST_TABS = 3
/** a small plan (depth 2) on two Chromiums, five namespaces and 2 cores */
const FINISH_TIMEOUT_MS = 60_000

test.describe.configure({ mode: 'serial' })
requireRoot(test, { needs: ['netns', 'iptables', 'coturn'] })

async function peerIdOf(page: Page): Promise<string> {
  await page.waitForFunction(() => window.murmuration !== undefined, undefined, {
    timeout: 30_000,
  })
  return page.evaluate(() => window.murmuration!.peerId)
}

/** The paths of `page`'s direct links (LAN, NAT, TURN), sorted. */
async function pathsOf(page: Page): Promise<string[]> {
  const summary = await page.evaluate(() => window.murmuration!.connections())
  return summary.peers
    .filter((p) => p.kind === 'direct-webrtc')
    .map((p) => p.path ?? 'unknown')
    .sort()
}

/** Waits until `page`'s links go as `expected` (a link can move to a better pair as ICE goes on). */
async function expectPaths(page: Page, expected: string[]): Promise<void> {
  await expect
    .poll(() => pathsOf(page), { timeout: 30_000, intervals: [250] })
    .toEqual([...expected].sort())
}

/** The host opens a decomposer and two scorers; the friend opens the Invite panel's link. */
async function hostAndFriend(scene: NatScene, room: TestRoom) {
  const tabs: Page[] = []
  for (const role of ['decomposer', 'scorer', 'scorer'] as const) {
    const page = await scene.tab(scene.host, scene.appUrl)
    await pickRole(page, room, role)
    tabs.push(page)
  }
  const decomposer = tabs[0]!
  // the link names the public host, and carries no TURN credential
  const link = await readShareLink(decomposer)
  // a guest's own link (version 7: one per person), made by the owner's panel
  expect(describeLink(room, link)).toEqual({
    origin: `http://${SERVER_IP}:${APP_PORT}`,
    role: 'executor',
    room: true,
    owner: true,
    person: 'other',
  })
  expect(link).not.toMatch(/turns?:|\d{10}:murmuration|credential|username/i)
  await decomposer.getByRole('button', { name: 'Close' }).click()

  const loadedAt = Date.now()
  const executor = await scene.tab(scene.friend, link)
  await expectJoined(executor, 'executor')
  return { tabs, decomposer, executor, loadedAt }
}

test.describe('a friend behind another NAT, no direct way: through TURN', () => {
  let scene: NatScene
  test.beforeAll(async ({ playwright }) => {
    test.setTimeout(120_000)
    scene = await startNatScene(playwright.chromium, { symmetricB: true })
  })
  test.afterAll(async () => scene?.close())

  test('joins from the share link, links through TURN, does the work with its own key', async () => {
    test.setTimeout(150_000)
    const room = testRoom('home-to-home')
    const { tabs, decomposer, executor, loadedAt } = await hostAndFriend(scene, room)

    // the friend's links to all the host's tabs go through TURN, and say so
    await expectPaths(executor, Array<string>(HOST_TABS).fill('turn'))
    const firstTurnLinkMs = Date.now() - loadedAt
    await expect(peerCount(executor)).toContainText(`${HOST_TABS} relayed through TURN`)
    // the host's own tabs reach each other on their machine: on the LAN, or
    // "direct" when Chromium hides the peer's address (an mDNS name answered
    // from an address it does not show); only the friend goes through TURN
    await expect
      .poll(async () => (await pathsOf(tabs[1]!)).map((p) => (p === 'direct' ? 'lan' : p)), {
        timeout: 30_000,
        intervals: [250],
      })
      .toEqual(['lan', 'lan', 'turn'])
    // coturn checked the app's shared-secret credential: expiry:label usernames
    expect(scene.turnOutput.join('')).toMatch(/username=<\d{10}:murmuration>/)
    expect(scene.turnOutput.join('')).not.toContain(TURN_SECRET)
    console.log(`NAT_FIGURE friend page load to ${HOST_TABS} TURN links: ${firstTurnLinkMs} ms`)

    await useModel(executor, {
      provider: 'Anthropic',
      model: 'claude-haiku-4-5',
      baseUrl: scene.friendLlmUrl,
      key: FRIEND_KEY,
    })
    // the plan has code and live-data leaves: the friend lets its executor run code and search
    await allowTools(executor, { code: true, search: true })
    const friendId = await peerIdOf(executor)
    await waitForPeers(decomposer, HOST_TABS)
    await submitGoal(decomposer, GOAL, 2)
    await expect(decomposer.getByRole('heading', { name: 'Final plan' })).toBeVisible({
      timeout: FINISH_TIMEOUT_MS,
    })
    const progress = await leavesDone(decomposer)
    expect(progress.total).toBeGreaterThanOrEqual(2)
    expect(progress.done).toBe(progress.total)
    // every leaf's result is the friend's: the host has no executor
    const results = await decomposer.evaluate(() =>
      window.murmuration!.records().filter((r) => r.kind === 'result'),
    )
    expect(results.length).toBeGreaterThanOrEqual(progress.total)
    expect(results.every((r) => r.from === friendId)).toBe(true)
    const calls = scene.friendRequests()
    expect(
      calls.filter((c) => c.taskKind === 'execute' && c.status === 200).length,
    ).toBeGreaterThan(0)
    // never told "cannot link" while it could
    await expect(executor.getByRole('alert', { name: 'No direct link' })).toHaveCount(0)
  })
})

test.describe('a friend behind another NAT that lets a direct path through', () => {
  let scene: NatScene
  test.beforeAll(async ({ playwright }) => {
    test.setTimeout(120_000)
    scene = await startNatScene(playwright.chromium, { symmetricB: false })
  })
  test.afterAll(async () => scene?.close())

  test('takes the direct path through the NATs, not TURN', async () => {
    test.setTimeout(90_000)
    const { executor } = await hostAndFriend(scene, testRoom('home-to-home-direct'))
    await expectPaths(executor, Array<string>(HOST_TABS).fill('nat'))
    await expect(peerCount(executor)).toContainText(`${HOST_TABS} direct through NAT`)
  })
})
