/**
 * A tab that cannot make direct links still takes part (issue 58): a
 * friend's browser without WebRTC (RTCPeerConnection removed before the
 * app loads, as a setting, an extension or a company policy does) is the
 * room's only executor, and the plan finishes with its work, its traffic
 * carried by the relay (src/net/fallback.ts); the host's tabs still link to
 * each other directly. Where the relay refuses (`npm start --
 * --relay-fallback off`), both tabs say so, and why, and no count is false.
 */
import type { BrowserContext, Page } from '@playwright/test'
import { serve } from './fixtures/serve'
import { expect, test } from './fixtures/ui-app'
import { expectJoined, leavesDone, peerCount, pickRole, submitGoal } from './fixtures/ui-steps'

const GOAL = 'Plan a two-week trip to Japan'
/** a small plan (depth 2) on the offline model, four tabs on two cores */
const FINISH_TIMEOUT_MS = 90_000

/** A browser whose pages have no WebRTC: gone before any script of the page runs. */
async function withoutWebRtc(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const w = window as unknown as Record<string, unknown>
    delete w.RTCPeerConnection
    delete w.webkitRTCPeerConnection
  })
}

async function peerIdOf(page: Page): Promise<string> {
  await page.waitForFunction(() => window.murmuration !== undefined, undefined, {
    timeout: 30_000,
  })
  return page.evaluate(() => window.murmuration!.peerId)
}

/** How `page` links to `peer` (its best link), as its node reports it. */
function kindTo(page: Page, peer: string): Promise<string | undefined> {
  return page.evaluate(
    (p) => window.murmuration!.connections().peers.find((l) => l.peerId === p)?.kind,
    peer,
  )
}

test('a tab without WebRTC is the only executor: the plan finishes through the relay, the others link directly', async ({
  browse,
  room,
}) => {
  test.setTimeout(FINISH_TIMEOUT_MS + 120_000)
  const host = await browse.machine('host')
  const tabs: Page[] = []
  for (const role of ['decomposer', 'scorer', 'scorer'] as const) {
    const page = await browse.tab(host, role)
    await pickRole(page, room, role)
    tabs.push(page)
  }
  const [decomposer, scorer] = tabs as [Page, Page, Page]
  const friend = await browse.machine('friend')
  await withoutWebRtc(friend)
  const executor = await browse.tab(friend, 'executor')
  expect(await executor.evaluate(() => typeof window.RTCPeerConnection)).toBe('undefined')
  await pickRole(executor, room, 'executor')
  const friendId = await peerIdOf(executor)

  // the friend's tab says why it cannot link directly, and that it works through the relay
  const notice = executor.getByRole('status', { name: 'Linked through the relay' })
  await expect(notice).toContainText('This browser cannot make direct links: it has no WebRTC', {
    timeout: 30_000,
  })
  await expect(notice).toContainText('It takes part through the relay instead')
  for (const name of ['No link to the room', 'No direct link'])
    await expect(executor.getByRole('alert', { name })).toHaveCount(0)
  // it is linked through the relay to its ring neighbours (two of three), and says so
  await expect(peerCount(executor)).toContainText('through the relay (no direct link possible)')

  // the host's tabs still link to each other directly; the friend reaches them through the relay
  const scorerId = await peerIdOf(scorer)
  await expect.poll(() => kindTo(decomposer, scorerId), { timeout: 30_000 }).toBe('direct-webrtc')
  const linkedToFriend = async () =>
    (await Promise.all(tabs.map((t) => kindTo(t, friendId)))).filter((k) => k === 'via-relay')
      .length
  await expect.poll(linkedToFriend, { timeout: 30_000 }).toBeGreaterThanOrEqual(2)
  for (const t of tabs) expect(await kindTo(t, friendId)).not.toBe('direct-webrtc')
  // the host's roster counts the friend as the executor it is (its beats come through the relay)
  const roster = decomposer.getByRole('region', { name: 'Who is in this room' })
  await expect(roster).toContainText('1 executor')

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
  await expect(executor.getByRole('heading', { name: /^Your results \([1-9]\d*\)$/ })).toBeVisible()
  expect(browse.pageErrors).toEqual([])
})

test.describe('the relay refuses to carry it', () => {
  // an app whose operator turned relaying off
  test.use({
    // eslint-disable-next-line no-empty-pattern
    site: async ({}, use) => {
      const served = await serve(['--relay-fallback', 'off'])
      await use(served)
      await served.stop()
    },
  })

  test('relaying off: the friend and the host each say why, and count nobody falsely', async ({
    browse,
    room,
  }) => {
    test.setTimeout(120_000)
    const host = await browse.machine('host')
    const decomposer = await browse.tab(host, 'decomposer')
    await pickRole(decomposer, room, 'decomposer')
    const friend = await browse.machine('friend')
    await withoutWebRtc(friend)
    const executor = await browse.tab(friend, 'executor')
    await pickRole(executor, room, 'executor')
    await expectJoined(executor, 'executor')
    const friendId = await peerIdOf(executor)

    // the friend: the real cause, the refusal, what to do
    const refused = executor.getByRole('alert', { name: 'No link to the room' })
    await expect(refused).toContainText('This browser cannot make direct links: it has no WebRTC', {
      timeout: 30_000,
    })
    await expect(refused).toContainText('whoever runs the app turned that off')
    await expect(refused).toContainText('No work can reach this tab')
    // (both tabs are on this computer's loopback address, so both read the
    // host's fix; a friend's page on a LAN address reads whom to ask:
    // link-notices.test.ts)
    await expect(refused).toContainText('start the app without --relay-fallback off')
    // the top bar and the roster: the host's tab is in the room, out of reach, not absent
    await expect(peerCount(executor)).toContainText('0 peers')
    await expect(peerCount(executor)).toContainText('1 in the room out of reach')
    const friendRoster = executor.getByRole('region', { name: 'Who is in this room' })
    await expect(friendRoster).toContainText('One peer is in this room and not linked to this tab')
    await expect(friendRoster).not.toContainText('No decomposer')

    // the host: that peer is in the room but unreachable, and why
    const outOfReach = decomposer.getByRole('alert', { name: 'Peers out of reach' })
    await expect(outOfReach).toContainText('One peer is in this room but out of reach', {
      timeout: 30_000,
    })
    await expect(outOfReach).toContainText(
      `${friendId.slice(-6)}: its browser has no WebRTC, and the relay does not carry it: whoever runs the app turned that off`,
    )
    await expect(outOfReach).toContainText('start the app without --relay-fallback off')
    await expect(peerCount(decomposer)).toContainText('1 in the room out of reach')
    const hostRoster = decomposer.getByRole('region', { name: 'Who is in this room' })
    await expect(hostRoster).toContainText('0 executors')
    await expect(hostRoster).toContainText('1 out of reach')
    await expect(hostRoster).toContainText('One peer in this room is out of reach')
    // and nothing linked them after all
    expect(await kindTo(decomposer, friendId)).toBeUndefined()
  })
})
