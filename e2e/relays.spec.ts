/**
 * Several relays (issue 26 item 3): the app names two relay processes in its
 * /relay.json, its own and another read from that relay's /relay.json URL
 * (other-relays.ts, as `npm start -- --relay URL` does), as an app served
 * from one host that uses relays on others would. Tabs register with both; a
 * headless scorer is given the second relay only. The relay the app names
 * first is killed (SIGKILL: a crash) right after the goal goes in: the plan
 * finishes, and a tab that joins afterwards joins through the other relay.
 *
 * The app server runs in this process (relay/app-server.ts, the one
 * `npm start` runs): `npm start`'s own relay lives in its process, and the
 * relay to kill here is the one the app names first.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Page } from '@playwright/test'
import { serveApp } from '../relay/app-server'
import { otherRelays } from '../relay/other-relays'
import { CLI_ENTRY } from '../scripts/build-cli.mjs'
import { silentLogger } from '../src/net/log'
import { startRelayProcess, type RelayProcess } from './fixtures/relay'
import { APP_DIST, buildApp, type Served } from './fixtures/serve'
import { expect, test as base } from './fixtures/ui-app'
import { allowTools, pickRole, submitGoal, waitForPeers } from './fixtures/ui-steps'

const ROOT = resolve(import.meta.dirname, '..')
const GOAL = 'Set up a neighbourhood seed swap'
/** three tabs and an agent on the offline model, 2 shared cores */
const FINISH_TIMEOUT_MS = 90_000

// test-scoped (the file has one test): worker fixtures of a spec's own would
// cost a worker of its own (workers.ts)
const test = base.extend<{ relays: RelayProcess[]; site: Served }>({
  relays: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const relays = await Promise.all([startRelayProcess(), startRelayProcess()])
      await use(relays)
      await Promise.all(relays.map((r) => r.dispose()))
    },
    { scope: 'test', timeout: 120_000 },
  ],
  site: [
    async ({ relays }, use) => {
      await buildApp()
      const [first, second] = relays as [RelayProcess, RelayProcess]
      const stop = new AbortController()
      const others = otherRelays({
        sources: [second.infoUrl],
        logger: silentLogger,
        signal: stop.signal,
      })
      await others.ready
      const server = await serveApp({
        dir: APP_DIST,
        host: '127.0.0.1',
        port: 0,
        relay: { peerId: first.peerId, multiaddrs: first.multiaddrs },
        otherRelays: () => others.list(),
        lanOrigins: () => [],
      })
      const url = `http://127.0.0.1:${server.port}/`
      const close = async () => {
        stop.abort()
        await server.close()
      }
      await use({ url, origin: new URL(url).origin, output: [], stop: close })
      await close()
    },
    { scope: 'test', timeout: 120_000 },
  ],
})

type RelayStatus = { peerId: string; connected: boolean; reserved: boolean }
const relaysOf = (page: Page): Promise<RelayStatus[]> =>
  page.evaluate(() => window.murmuration!.connections().relays)
const relayBadge = (page: Page) => page.getByRole('banner').getByLabel('Connections')

/** The headless agent (src/cli/agent.ts) as a scorer, told of `relay` only. */
function startScorer(relay: RelayProcess, invite: string, data: string) {
  const output: string[] = []
  const relayArgs = relay.multiaddrs.flatMap((m) => ['--relay', m])
  const child: ChildProcess = spawn(
    process.execPath,
    [
      CLI_ENTRY,
      ...['--role', 'scorer', '--invite', invite, '--data', data, '--rtc-bind', '127.0.0.1'],
      ...relayArgs,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  const peerId = () => /Murmuration scorer (12D3KooW\w+)/.exec(output.join(''))?.[1]
  return { child, output, peerId }
}

test('two relays: tabs register with both; one killed mid-run costs nothing, and a tab that joins afterwards joins through the other', async ({
  browse,
  room,
  site: app,
  relays,
}) => {
  test.setTimeout(FINISH_TIMEOUT_MS + 150_000)
  const [first, second] = relays as [RelayProcess, RelayProcess]
  const data = mkdtempSync(join(tmpdir(), 'murm-relays-agent-'))
  const scorer = startScorer(second, room.link(app.url), data)
  try {
    const mine = await browse.machine('mine')
    const tabs: Page[] = []
    for (const role of ['decomposer', 'scorer', 'executor'] as const) {
      const page = await browse.tab(mine, role)
      await pickRole(page, room, role)
      if (role === 'executor') await allowTools(page, { code: true, knowledge: true })
      tabs.push(page)
    }
    const [decomposer, , executor] = tabs as [Page, Page, Page]
    // every tab holds a reservation on both relays, and says so
    for (const page of tabs) {
      await expect(relayBadge(page)).toContainText('Relays 2 of 2 up', { timeout: 30_000 })
    }
    expect((await relaysOf(decomposer)).map((r) => r.peerId).sort()).toEqual(
      [first.peerId, second.peerId].sort(),
    )
    // the agent, registered at the second relay only, finds the tabs and links to them
    await expect.poll(scorer.peerId, { timeout: 60_000 }).toBeTruthy()
    await decomposer.waitForFunction(
      (id) =>
        window
          .murmuration!.connections()
          .peers.some((p) => p.peerId === id && p.kind !== 'relayed'),
      scorer.peerId(),
      { timeout: 60_000 },
    )
    await waitForPeers(decomposer, 3)

    await submitGoal(decomposer, GOAL, 1)
    const killedAt = Date.now()
    await first.stop('SIGKILL')
    await expect(executor.getByRole('heading', { name: 'Final plan' })).toHaveCount(0)
    for (const page of tabs) {
      await expect(relayBadge(page)).toContainText('Relays 1 of 2 up', { timeout: 30_000 })
    }
    await expect(executor.getByRole('heading', { name: 'Final plan' })).toBeVisible({
      timeout: FINISH_TIMEOUT_MS,
    })
    console.log(`plan finished ${Date.now() - killedAt} ms after the first relay was killed`)

    // a friend joins now: the app still names both relays; only the second answers
    const joinStarted = Date.now()
    const friend = await browse.tab(await browse.machine('friend'), 'late observer')
    await pickRole(friend, room, 'observer')
    const joinedAt = Date.now()
    await waitForPeers(friend, 4)
    console.log(
      `late tab joined ${joinedAt - joinStarted} ms after opening, linked to 4 peers ${Date.now() - joinedAt} ms later`,
    )
    await expect(friend.getByRole('heading', { name: 'Final plan' })).toBeVisible({
      timeout: 30_000,
    })
    await expect(relayBadge(friend)).toContainText('Relays 1 of 2 up')
    const status = await relaysOf(friend)
    expect(status.find((r) => r.peerId === first.peerId)).toMatchObject({ connected: false })
    expect(status.find((r) => r.peerId === second.peerId)).toMatchObject({
      connected: true,
      reserved: true,
    })
    // its links turn direct (two, its ring neighbours, if the room has gone
    // quiet meanwhile); a link still being upgraded from the relayed one
    // counts as relayed until it is, which on a busy machine can take a while
    await expect
      .poll(
        async () => {
          const links = await friend.evaluate(() => window.murmuration!.connections())
          return links.direct >= (links.quiet ? 2 : 3) ? 'direct' : JSON.stringify(links)
        },
        { timeout: 30_000 },
      )
      .toBe('direct')
    expect(browse.pageErrors).toEqual([])
  } finally {
    scorer.child.kill('SIGTERM')
    rmSync(data, { recursive: true, force: true })
  }
})
