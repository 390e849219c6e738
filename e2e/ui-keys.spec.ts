/**
 * The API key stays in the browser it was typed into: it reaches the LLM
 * provider and nothing else. Observed three ways while two tabs with keys do
 * real work:
 * - every WebSocket frame of every tab (links to the relay, circuit-relayed
 *   WebRTC signalling), as Playwright sees them;
 * - every gossip message of the room in plain text, as a headless peer that
 *   joins the room with its invite hears them (it decrypts like any peer:
 *   what Noise and the room key hide from the frames is visible to it);
 * - every plan record each tab holds (from gossip and from sync), read
 *   through the runtime's read-only devtools handle.
 */
import type { Page } from '@playwright/test'
import type { PlanRecord } from '../src/protocol/records'
import { roomTopics } from '../src/protocol/topics'
import { FRIEND_KEY, MOCK_KEY, expect, test } from './fixtures/ui-app'
import { startNodePeer } from './fixtures/node-peer'
import { pickRole, submitGoal, useModel, waitForPeers } from './fixtures/ui-steps'

const GOAL = 'Write a one-page guide to composting at home'

const recordsOf = (page: Page): Promise<PlanRecord[]> =>
  page.evaluate(() => window.murmuration!.records())

test('API keys appear in no gossip, sync or relay traffic, only in requests to the LLM', async ({
  browse,
  room,
  mockLlm,
  app,
}) => {
  test.setTimeout(240_000)
  const relay = (await (await fetch(new URL('/relay.json', app.url))).json()) as {
    multiaddrs: string[]
  }
  const listener = await startNodePeer({ relays: relay.multiaddrs, invite: room.fragment })
  try {
    const topics = roomTopics(room.id)
    listener.subscribe(topics.plan)
    listener.subscribe(topics.presence)

    const mine = await browse.machine('mine')
    const decomposer = await browse.tab(mine, 'decomposer')
    await pickRole(decomposer, room, 'decomposer')
    await useModel(decomposer, {
      provider: 'OpenAI-compatible server',
      model: 'mock-model',
      baseUrl: `${mockLlm.url}/v1`,
      key: MOCK_KEY,
    })
    const scorers: Page[] = []
    for (const name of ['scorer-1', 'scorer-2']) {
      const scorer = await browse.tab(mine, name)
      await pickRole(scorer, room, 'scorer')
      scorers.push(scorer)
    }
    const friend = await browse.machine('friend')
    const executor = await browse.tab(friend, 'executor')
    await pickRole(executor, room, 'executor')
    await useModel(executor, {
      provider: 'Anthropic',
      model: 'claude-haiku-4-5',
      baseUrl: `${mockLlm.url}/v1`,
      key: FRIEND_KEY,
    })
    // three other tabs and the headless listener
    await waitForPeers(decomposer, 4)
    await submitGoal(decomposer, GOAL, 1)
    await expect(executor.getByRole('heading', { name: /^Your results \([1-9]/ })).toBeVisible({
      timeout: 150_000,
    })

    // the keys did go to the LLM
    const withKey = (key: string) =>
      mockLlm.requests.filter(
        (r) => r.headers['x-api-key'] === key || r.headers.authorization === `Bearer ${key}`,
      )
    expect(withKey(MOCK_KEY).some((r) => r.taskKind === 'decompose')).toBe(true)
    expect(withKey(FRIEND_KEY).some((r) => r.taskKind === 'execute')).toBe(true)

    const forms = (key: string) => [
      Buffer.from(key, 'utf8'),
      Buffer.from(Buffer.from(key).toString('base64').slice(0, 24), 'utf8'),
      Buffer.from(key, 'utf16le'),
    ]
    // 1. WebSocket frames of every tab
    expect(browse.frames.length).toBeGreaterThan(0)
    for (const key of [MOCK_KEY, FRIEND_KEY]) {
      for (const form of forms(key)) {
        expect(browse.frames.filter((f) => f.payload.includes(form)).map((f) => f.page)).toEqual([])
      }
    }

    // 2. gossip in plain text, as a peer of the room hears it (not vacuous: it heard the plan)
    await listener.waitFor(
      () => listener.messages.some((m) => m.topic === topics.plan && m.text.includes(GOAL)),
      30_000,
      'the goal by gossip',
    )
    expect(listener.messages.some((m) => m.topic === topics.presence)).toBe(true)
    for (const key of [MOCK_KEY, FRIEND_KEY]) {
      expect(listener.messages.filter((m) => m.text.includes(key))).toEqual([])
    }

    // 3. every record each tab holds, whether it came by gossip or by sync
    for (const page of [decomposer, ...scorers, executor]) {
      const records = JSON.stringify(await recordsOf(page))
      expect(records).toContain(GOAL)
      expect(records).not.toContain(MOCK_KEY)
      expect(records).not.toContain(FRIEND_KEY)
    }
  } finally {
    await listener.stop()
  }
})
