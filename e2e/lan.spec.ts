/**
 * A friend's tab on another machine joins (issue: the LAN party). Two
 * machines are simulated by network namespaces (fixtures/lan.ts): the host
 * runs the app with --lan (and --https) and opens a decomposer, two scorers
 * and an observer; the friend opens the share link read from the host's
 * Invite panel in their own Chromium, with their own key for their own mock
 * LLM, and does the plan's work. Needs root (fixtures/capabilities.ts).
 */
import type { Page } from '@playwright/test'
import { requireRoot } from './fixtures/capabilities'
import { LAN_PREFIX } from './fixtures/lan'
import { plantSession } from './fixtures/net'
import { APP_PORT, startLanScene, type LanScene } from './fixtures/lan-app'
import { describeLink, testRoom } from './fixtures/rooms'
import { expect, FRIEND_KEY } from './fixtures/ui-app'
import {
  allowTools,
  expectDirectLinks,
  expectJoined,
  leavesDone,
  pickRole,
  readShareLink,
  submitGoal,
  useModel,
  waitForPeers,
} from './fixtures/ui-steps'
import { test } from './fixtures/workers'

const GOAL = 'Plan a two-week trip to Japan'
const HOST_LAN = `${LAN_PREFIX}.1`
/** a whole plan, on two Chromiums and 2 cores */
const FINISH_TIMEOUT_MS = 240_000

test.describe.configure({ mode: 'serial' })
// namespaces need root: skipped with one line without it, failed under CI
requireRoot(test, { needs: ['netns'] })

/** what a tab that is about to hang logs, with its sessionStorage */
const HANGING = 'hanging with '

async function peerIdOf(page: Page): Promise<string> {
  await page.waitForFunction(() => window.murmuration !== undefined, undefined, {
    timeout: 30_000,
  })
  return page.evaluate(() => window.murmuration!.peerId)
}

/**
 * The whole scene: host tabs, the share link from the Invite panel, the
 * friend's executor doing every leaf with its own key over direct WebRTC.
 */
async function friendDoesTheWork(scene: LanScene, secure: boolean): Promise<void> {
  const room = testRoom(`lan-${secure ? 'https' : 'http'}`)
  const tabs: Record<string, Page> = {}
  for (const [name, role] of [
    ['decomposer', 'decomposer'],
    ['scorer-1', 'scorer'],
    ['scorer-2', 'scorer'],
    ['observer', 'observer'],
  ] as const) {
    tabs[name] = await scene.tab(scene.host, scene.hostUrl)
    await pickRole(tabs[name], room, role)
  }
  const { decomposer, observer } = tabs as Record<'decomposer' | 'observer', Page>

  // the link the host's Invite panel gives: the LAN address, never 127.0.0.1
  const link = await readShareLink(decomposer)
  const scheme = secure ? 'https' : 'http'
  // a guest's own link (version 7: one per person), made by the owner's panel
  expect(describeLink(room, link)).toEqual({
    origin: `${scheme}://${HOST_LAN}:${APP_PORT}`,
    role: 'executor',
    room: true,
    owner: true,
    person: 'other',
  })
  await decomposer.getByRole('button', { name: 'Close' }).click()

  const executor = await scene.tab(scene.friend, link)
  expect(await executor.evaluate(() => isSecureContext)).toBe(secure)
  // what the browser takes away from a page that is not a secure context
  expect(await executor.evaluate(() => navigator.locks === undefined)).toBe(!secure)
  expect(await executor.evaluate(() => crypto.subtle === undefined)).toBe(!secure)
  await expectJoined(executor, 'executor')
  await useModel(executor, {
    provider: 'Anthropic',
    model: 'claude-haiku-4-5',
    baseUrl: scene.friendLlmUrl,
    key: FRIEND_KEY,
  })
  // the plan has code and live-data leaves: the friend lets its executor run code and search
  await allowTools(executor, { code: true, search: true })
  const friendId = await peerIdOf(executor)

  await waitForPeers(observer, 4)
  await submitGoal(decomposer, GOAL, 2)
  await expect(observer.getByRole('heading', { name: 'Final plan' })).toBeVisible({
    timeout: FINISH_TIMEOUT_MS,
  })
  const progress = await leavesDone(observer)
  expect(progress.total).toBeGreaterThanOrEqual(2)
  expect(progress.done).toBe(progress.total)

  // every leaf's counted result is the friend's: the host has no executor
  const results = await observer.evaluate(() =>
    window.murmuration!.records().filter((r) => r.kind === 'result'),
  )
  expect(results.length).toBeGreaterThanOrEqual(progress.total)
  expect(results.every((r) => r.from === friendId)).toBe(true)
  await expect(executor.getByRole('heading', { name: /^Your results \([1-9]\d*\)$/ })).toBeVisible()

  // the friend linked straight to every host tab: plan traffic never went through the relay
  await expectDirectLinks(executor, 4, 60_000)
  const traffic = await executor.evaluate(() => window.murmuration!.traffic())
  expect(traffic.received + traffic.synced).toBeGreaterThan(0)

  // the friend's key went to the friend's LLM, and only there
  const calls = scene.friendRequests()
  expect(calls.filter((c) => c.taskKind === 'execute' && c.status === 200).length).toBeGreaterThan(
    0,
  )
  expect(calls.every((c) => c.key === FRIEND_KEY)).toBe(true)
  const key = Buffer.from(FRIEND_KEY)
  expect(scene.wsFrames.length).toBeGreaterThan(0)
  expect(scene.wsFrames.some((f) => f.includes(key))).toBe(false)
  expect(scene.hostOutput.join('')).not.toContain(FRIEND_KEY)
  for (const page of Object.values(tabs)) {
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(FRIEND_KEY)
  }
}

test.describe('a friend on another machine, over plain http', () => {
  let scene: LanScene
  test.beforeAll(async ({ playwright }) => {
    test.setTimeout(180_000)
    scene = await startLanScene(playwright.chromium, false)
  })
  test.afterAll(async () => scene?.close())

  test('tab identity without Web Locks: reload, duplicate, two at once, a hung tab, a crash', async () => {
    test.setTimeout(180_000)
    const url = testRoom('ids').link(`http://${HOST_LAN}:${APP_PORT}`, 'observer')
    type Session = Record<string, string>
    const open = async (session?: Session) => {
      const page = await scene.friend.newPage()
      if (session !== undefined) await plantSession(page, session)
      await page.goto(url)
      return page
    }
    const sessionOf = (page: Page) => page.evaluate(() => ({ ...sessionStorage }) as Session)
    // the slot a tab holds is its identity: one key per slot (a reload keeps both)
    const slotOf = (session: Session) => session['murmuration-identity-slot']

    const a = await open()
    expect(await a.evaluate(() => isSecureContext || navigator.locks !== undefined)).toBe(false)
    const idA = await peerIdOf(a)
    await a.reload()
    expect(await peerIdOf(a), 'a reload keeps its identity').toBe(idA)

    const dup = await open(await sessionOf(a))
    const idDup = await peerIdOf(dup)
    expect(idDup, 'a duplicated tab takes another identity').not.toBe(idA)

    const [x, y] = await Promise.all([open(), open()])
    const [idX, idY] = await Promise.all([peerIdOf(x!), peerIdOf(y!)])
    expect(new Set([idA, idDup, idX, idY]).size, 'two tabs opened at once: four identities').toBe(4)

    // a tab that hangs the moment it holds its slot keeps it: its keeper
    // worker listened before the slot was handed over, and answers for it…
    const hung = await scene.friend.newPage()
    await hung.addInitScript((said) => {
      const timer = setInterval(() => {
        if (sessionStorage.getItem('murmuration-identity-slot') === null) return
        clearInterval(timer)
        console.log(said + JSON.stringify({ ...sessionStorage }))
        for (;;);
      }, 1)
    }, HANGING)
    const hanging = hung.waitForEvent('console', {
      predicate: (m) => m.text().startsWith(HANGING),
      timeout: 30_000,
    })
    void hung.goto(url).catch(() => {}) // it may hang before its load event
    const hungSession = JSON.parse((await hanging).text().slice(HANGING.length)) as Session
    const meanwhile = await open(hungSession)
    const idMeanwhile = await peerIdOf(meanwhile)
    expect(slotOf(await sessionOf(meanwhile)), 'a hung tab keeps its slot').not.toBe(
      slotOf(hungSession),
    )
    // …and once it is gone without a goodbye (a hung page cannot run pagehide,
    // like a crash), its slot comes free: the restored tab takes it back
    await hung.close({ runBeforeUnload: false })
    const restored = await open(hungSession)
    expect(slotOf(await sessionOf(restored)), "a gone tab's slot comes free").toBe(
      slotOf(hungSession),
    )
    const ids = [idA, idDup, idX, idY, idMeanwhile, await peerIdOf(restored)]
    expect(new Set(ids).size, 'six open tabs, six identities').toBe(6)
    // and nobody else was disturbed
    await a.reload()
    expect(await peerIdOf(a), 'a second reload keeps its identity').toBe(idA)
    expect(await peerIdOf(dup)).toBe(idDup)
    for (const page of [a, dup, x!, y!, meanwhile, restored]) await page.close()
  })

  test('joins from the share link, links directly, does the work with its own key', async () => {
    test.setTimeout(FINISH_TIMEOUT_MS + 120_000)
    await friendDoesTheWork(scene, false)
  })
})

test.describe('a friend on another machine, over https', () => {
  let scene: LanScene
  test.beforeAll(async ({ playwright }) => {
    test.setTimeout(180_000)
    scene = await startLanScene(playwright.chromium, true)
  })
  test.afterAll(async () => scene?.close())

  test('npm start -- --lan --https: certificate, secure context, wss through the app port', async () => {
    test.setTimeout(FINISH_TIMEOUT_MS + 120_000)
    const printed = scene.hostOutput.join('')
    expect(printed).toContain(`LAN:   https://${HOST_LAN}:${APP_PORT}/`)
    expect(printed).toMatch(/SHA-256 ([0-9A-F]{2}:){31}[0-9A-F]{2}/)
    // a friend who types the plain http address lands on https
    const typed = await scene.friend.newPage()
    await typed.goto(`http://${HOST_LAN}:${APP_PORT}/`)
    expect(typed.url()).toBe(`https://${HOST_LAN}:${APP_PORT}/`)
    await typed.close()
    await friendDoesTheWork(scene, true)
    // an https page never tried ws:// (no mixed content); it reached the relay over wss
    expect(scene.friendWsUrls.length).toBeGreaterThan(0)
    expect(
      scene.friendWsUrls.filter((u) => !u.startsWith(`wss://${HOST_LAN}:${APP_PORT}/`)),
    ).toEqual([])
  })
})
