/**
 * Members as people (issue 45), in Chromium with a real relay, WebRTC and
 * IndexedDB: the owner's Invite panel makes one link per person, and only
 * when asked (opening it admits nobody); resetting
 * a person's link leaves whoever holds the old one (a Node peer that speaks
 * only the documented protocol) hearing nothing of the next goal and
 * reaching no tab, while the members' plan finishes; a removed member's tab
 * says so in words and sees nothing new; one person's five PeerIds have one
 * member's goal limits; a member offline during a reset catches up; a
 * co-owner removes a member as the owner would.
 */
import type { BrowserContext, Page } from '@playwright/test'
import { roomTopics } from '../src/protocol/topics'
import { MAX_OPEN_GOALS_PER_AUTHOR } from '../src/protocol/limits'
import { expect, test } from './fixtures/ui-app'
import { links, startNodePeer, type NodePeer } from './fixtures/node-peer'
import type { TestRoom } from './fixtures/rooms'
import { expectJoined, leavesDone, pickRole, submitGoal, waitForPeers } from './fixtures/ui-steps'

const goalsOf = (page: Page): Promise<string[]> =>
  page.evaluate(() => window.murmuration!.tree().goals.map((g) => g.text))

/** The owner invites a person by name (a co-owner if asked) from the Invite panel and reads their link. */
async function invite(owner: Page, name: string, coOwner = false): Promise<string> {
  await owner.getByRole('button', { name: 'Invite', exact: true }).click()
  await owner.getByLabel('Their name').fill(name)
  if (coOwner) await owner.getByRole('checkbox', { name: /^Co-owner/ }).check()
  await owner.getByRole('button', { name: 'Invite someone' }).click()
  await expect(owner.getByText(`A new link for ${name}:`)).toBeVisible()
  const link = await owner.getByRole('textbox', { name: 'Share link' }).inputValue()
  await owner.getByRole('button', { name: 'Close' }).click()
  return link
}

/** The owner resets or removes a person from the member list, confirming; a reset returns the new link. */
async function manage(owner: Page, name: string, action: 'reset' | 'remove'): Promise<string> {
  await owner.getByRole('button', { name: 'Invite', exact: true }).click()
  const list = owner.getByRole('region', { name: 'Invite' })
  if (action === 'reset') {
    await list.getByRole('button', { name: `Reset invite link of ${name}` }).click()
    await list.getByRole('button', { name: 'Yes, reset the link' }).click()
    await expect(list.getByText(`A new link for ${name}:`)).toBeVisible()
  } else {
    await list.getByRole('button', { name: `Remove ${name}` }).click()
    await list.getByRole('button', { name: `Yes, remove ${name}` }).click()
  }
  await expect(list.getByText(new RegExp(`(link reset|removed) by Owner at`))).toBeVisible()
  const link =
    action === 'reset' ? await list.getByRole('textbox', { name: 'Share link' }).inputValue() : ''
  await owner.getByRole('button', { name: 'Close' }).click()
  return link
}

async function relays(appUrl: string): Promise<string[]> {
  const info = (await (await fetch(new URL('/relay.json', appUrl))).json()) as {
    multiaddrs: string[]
  }
  return info.multiaddrs
}

async function ownerTabs(
  browse: {
    machine(n: string): Promise<BrowserContext>
    tab(c: BrowserContext, n: string, p?: string): Promise<Page>
  },
  room: TestRoom,
  roles: Array<'decomposer' | 'scorer' | 'executor' | 'observer'>,
): Promise<Page[]> {
  const mine = await browse.machine('owner')
  const tabs: Page[] = []
  for (const [i, role] of roles.entries()) {
    const page = await browse.tab(mine, `owner-${role}-${i}`)
    await pickRole(page, room, role)
    tabs.push(page)
  }
  return tabs
}

test('opening the Invite panel makes no link and admits nobody; “Invite someone” does', async ({
  browse,
  room,
}) => {
  const [owner] = await ownerTabs(browse, room, ['observer'])
  const admits = () =>
    owner!.evaluate(() => window.murmuration!.records().filter((r) => r.kind === 'admit').length)
  // the owner's own admit (its name), published once it joined
  await expect.poll(admits, { timeout: 30_000 }).toBe(1)
  for (let i = 0; i < 2; i++) {
    await owner!.getByRole('button', { name: 'Invite', exact: true }).click()
    const panel = owner!.getByRole('region', { name: 'Invite', exact: true })
    await expect(panel.getByRole('button', { name: 'Invite someone' })).toBeVisible()
    await expect(panel.getByText('nothing is made until you ask')).toBeVisible()
    await expect(panel.getByRole('textbox', { name: 'Share link' })).toHaveCount(0)
    await expect(panel.getByText(/not joined yet/)).toHaveCount(0)
    await owner!.getByRole('button', { name: 'Close' }).click()
  }
  expect(await admits()).toBe(1)
  await invite(owner!, 'Erin')
  await expect.poll(admits).toBe(2)
  // the link made on request is shown again next time, and nothing more is made
  await owner!.getByRole('button', { name: 'Invite', exact: true }).click()
  await expect(owner!.getByRole('textbox', { name: 'Share link' })).toBeVisible()
  await owner!.getByRole('button', { name: 'Close' }).click()
  expect(await admits()).toBe(2)
})

test('a reset link: the old link (a Node peer) hears nothing of the next goal and reaches no tab; the plan finishes', async ({
  browse,
  room,
  app,
}) => {
  test.setTimeout(300_000)
  const [decomposer, scorer] = await ownerTabs(browse, room, ['decomposer', 'scorer'])
  const owner = decomposer!
  const bobLink = await invite(owner, 'Bob')
  const carolLink = await invite(owner, 'Carol')
  const bob = await browse.tab(
    await browse.machine('bob'),
    'bob-scorer',
    bobLink.replace('role=executor', 'role=scorer'),
  )
  await expectJoined(bob, 'scorer')
  const carolMachine = await browse.machine('carol')
  const carol = await browse.tab(carolMachine, 'carol-executor', carolLink)
  await expectJoined(carol, 'executor')
  // the old link, as a headless peer that speaks only the documented protocol
  const leaked: NodePeer = await startNodePeer({
    relays: await relays(app.url),
    invite: new URL(carolLink).hash.slice(1),
  })
  try {
    const epoch0 = roomTopics(room.id)
    leaked.subscribe(epoch0.plan)
    leaked.subscribe(epoch0.presence)
    await waitForPeers(owner, 4)
    // the old link is in the room before the reset: it opens what the room says
    // (presence beats come every few seconds), so what it misses later it misses
    // for want of the key, not for want of a link
    await expect.poll(() => leaked.messages.some((m) => m.opened), { timeout: 60_000 }).toBe(true)

    const newCarol = await manage(owner, 'Carol', 'reset')
    expect(newCarol).not.toBe(carolLink)
    // Carol's tab (the old link) is told, in words
    await expect(
      carol.getByRole('alert').filter({ hasText: 'This invite link was reset by Owner at' }),
    ).toBeVisible()
    await expect(carol.getByText(/Ask them for a new link\./)).toBeVisible()
    const resetAt = Date.now()
    // Carol again, from her new link
    const carol2 = await browse.tab(carolMachine, 'carol-executor-2', newCarol)
    await expectJoined(carol2, 'executor')
    await waitForPeers(owner, 3)

    const GOAL = 'Plan a picnic after the reset'
    await submitGoal(owner, GOAL, 1)
    await expect
      .poll(
        async () =>
          (await leavesDone(owner)).done > 0 &&
          (await leavesDone(owner)).done === (await leavesDone(owner)).total,
        { timeout: 180_000 },
      )
      .toBe(true)
    // it opened nothing of the next goal (the rekey that shut it out reaches it
    // by gossip only if its plan-topic mesh was formed at that moment: this peer
    // syncs nothing, so it is not asserted here; src/runtime/members.node.test.ts
    // checks that a returning old link is told, and Carol's tab says so above)
    const heard = leaked.messages.filter((m) => m.at >= resetAt)
    expect(heard.filter((m) => m.opened && m.text.includes(GOAL))).toEqual([])
    expect(leaked.messages.some((m) => m.text.includes(GOAL))).toBe(false)
    // and what it publishes reaches no tab
    await leaked.goals([{ text: 'From the leaked link', createdAt: Date.now(), maxDepth: 1 }])
    await new Promise((r) => setTimeout(r, 5_000))
    for (const page of [owner, scorer!, bob, carol2])
      expect(await goalsOf(page)).not.toContain('From the leaked link')
  } finally {
    await leaked.stop()
  }
})

test('a removed member’s tab says so and sees nothing new', async ({ browse, room }) => {
  test.setTimeout(240_000)
  const [owner] = await ownerTabs(browse, room, ['decomposer'])
  const bobLink = await invite(owner!, 'Bob')
  const bob = await browse.tab(
    await browse.machine('bob'),
    'bob',
    bobLink.replace('role=executor', 'role=observer'),
  )
  await expectJoined(bob, 'observer')
  await waitForPeers(owner!, 1)
  await submitGoal(owner!, 'Before the removal', 1)
  await expect.poll(() => goalsOf(bob), { timeout: 60_000 }).toContain('Before the removal')

  await manage(owner!, 'Bob', 'remove')
  await expect(
    bob.getByRole('alert').filter({
      hasText: new RegExp(
        `^You were removed from “${room.name}” by Owner at .+\\. Nothing new reaches this tab\\.$`,
      ),
    }),
  ).toBeVisible()
  await submitGoal(owner!, 'After the removal', 1)
  await expect.poll(() => goalsOf(owner!)).toContain('After the removal')
  await new Promise((r) => setTimeout(r, 5_000))
  expect(await goalsOf(bob)).not.toContain('After the removal')
  // what it had stays: the earlier goal is history
  expect(await goalsOf(bob)).toContain('Before the removal')
})

test('a removal keeps what its owner’s browser archived of the member: the goal stays done for a member who did not archive it', async ({
  browse,
  room,
}) => {
  test.setTimeout(300_000)
  const [owner] = await ownerTabs(browse, room, ['decomposer', 'scorer', 'scorer'])
  const remLink = await invite(owner!, 'Rem')
  const beaLink = await invite(owner!, 'Bea')
  // Rem is the only executor: every leaf is Rem's work
  const rem = await browse.tab(await browse.machine('rem'), 'rem', remLink)
  await expectJoined(rem, 'executor')
  const bea = await browse.tab(
    await browse.machine('bea'),
    'bea',
    beaLink.replace('role=executor', 'role=observer'),
  )
  await expectJoined(bea, 'observer')
  await waitForPeers(owner!, 4)
  await submitGoal(owner!, 'Plan a board game night', 1)
  const allDone = async (page: Page) => {
    const { done, total } = await leavesDone(page)
    return total > 0 && done === total
  }
  for (const page of [owner!, bea])
    await expect.poll(() => allDone(page), { timeout: 180_000 }).toBe(true)
  const remResults = await bea.evaluate(() =>
    window
      .murmuration!.records()
      .filter((r) => r.kind === 'result')
      .map((r) => r.id),
  )
  expect(remResults.length).toBeGreaterThan(0)

  // the owner's browser archives the goal: Rem's results leave its store (IndexedDB)
  await owner!.getByRole('button', { name: /^Archive finished goals/ }).click()
  await expect(owner!.getByRole('status').filter({ hasText: /^Archived 1 goal/ })).toBeVisible()
  await manage(owner!, 'Rem', 'remove')
  const rekeyAt = (page: Page) =>
    page.evaluate(() => {
      const rekey = window.murmuration!.records().find((r) => r.kind === 'rekey')
      return rekey && rekey.kind === 'rekey' ? rekey.kept : null
    })
  await expect.poll(() => rekeyAt(bea), { timeout: 60_000 }).not.toBeNull()
  // the rekey keeps Rem's archived results: the owner's browser remembered who wrote them
  const kept = (await rekeyAt(bea))!
  for (const id of remResults) expect(kept).toContain(id)
  // so for Bea, who archived nothing, the goal stays done: no leaf opens again
  await new Promise((r) => setTimeout(r, 2_000))
  expect(await allDone(bea)).toBe(true)
  await expect(bea.getByText('Done', { exact: true }).first()).toBeVisible()
})

test('one person with five PeerIds has one member’s goal limits, as another person’s tab counts them', async ({
  browse,
  room,
  app,
}) => {
  test.setTimeout(240_000)
  const [owner] = await ownerTabs(browse, room, ['observer'])
  const danLink = await invite(owner!, 'Dan')
  const fragment = new URL(danLink).hash.slice(1)
  const peers: NodePeer[] = []
  try {
    const multiaddrs = await relays(app.url)
    // started together: each is seconds of tsx and libp2p start-up
    const started = await Promise.allSettled(
      Array.from({ length: 5 }, () => startNodePeer({ relays: multiaddrs, invite: fragment })),
    )
    for (const s of started) if (s.status === 'fulfilled') peers.push(s.value)
    const failed = started.find((s) => s.status === 'rejected')
    if (failed) throw failed.reason
    await expect
      .poll(() => peers.map((p) => links(p.summary())).join(' '), { timeout: 90_000 })
      .toMatch(/^[1-9]\d* [1-9]\d* [1-9]\d* [1-9]\d* [1-9]\d*$/)
    await waitForPeers(owner!, 1)
    // two goals from each PeerId: within one PeerId's limits all ten would count; one member may
    // have MAX_OPEN_GOALS_PER_AUTHOR open at once. The node peers keep no store (they sync nothing
    // of their own), so they publish again (same records, same ids) until the owner's tab holds
    // goals of at least two of them: more than one member's limit, were they counted per PeerId
    const now = Date.now()
    const danGoals = (i: number) => [
      { text: `Dan's goal ${i}a`, createdAt: now + i * 2, maxDepth: 1 },
      { text: `Dan's goal ${i}b`, createdAt: now + i * 2 + 1, maxDepth: 1 },
    ]
    const held = () =>
      owner!.evaluate(
        () =>
          window
            .murmuration!.records()
            .filter((r) => r.kind === 'goal' && r.text.startsWith("Dan's goal")).length,
      )
    await expect
      .poll(
        async () => {
          for (const [i, peer] of peers.entries()) await peer.goals(danGoals(i))
          return held()
        },
        { timeout: 90_000, intervals: [3_000] },
      )
      .toBeGreaterThan(MAX_OPEN_GOALS_PER_AUTHOR)
    const shown = async () =>
      (await goalsOf(owner!)).filter((t) => t.startsWith("Dan's goal")).length
    await expect.poll(shown).toBe(MAX_OPEN_GOALS_PER_AUTHOR)
    await new Promise((r) => setTimeout(r, 3_000))
    expect(await shown()).toBe(MAX_OPEN_GOALS_PER_AUTHOR)
  } finally {
    await Promise.all(peers.map((p) => p.stop()))
  }
})

test('a member offline during a reset catches up through a remaining member', async ({
  browse,
  room,
}) => {
  test.setTimeout(240_000)
  const [owner] = await ownerTabs(browse, room, ['decomposer'])
  const bobLink = await invite(owner!, 'Bob')
  const carolLink = await invite(owner!, 'Carol')
  const bobMachine = await browse.machine('bob')
  const observerLink = bobLink.replace('role=executor', 'role=observer')
  const bob = await browse.tab(bobMachine, 'bob', observerLink)
  await expectJoined(bob, 'observer')
  const carol = await browse.tab(
    await browse.machine('carol'),
    'carol',
    carolLink.replace('role=executor', 'role=observer'),
  )
  await expectJoined(carol, 'observer')
  await waitForPeers(owner!, 2)
  // Bob closes his tab; the owner resets Carol's link and writes a goal
  await bob.close()
  await manage(owner!, 'Carol', 'reset')
  await submitGoal(owner!, 'While Bob was away', 1)
  // Bob comes back with his link (the old epoch's key): a remaining member forwards the rekey
  const back = await browse.tab(bobMachine, 'bob-again', observerLink)
  await expectJoined(back, 'observer')
  await expect.poll(() => goalsOf(back), { timeout: 90_000 }).toContain('While Bob was away')
  expect(
    await carol.getByRole('alert').filter({ hasText: 'This invite link was reset' }).count(),
  ).toBe(1)
})

test('a co-owner removes a member: the removed tab names the co-owner', async ({
  browse,
  room,
}) => {
  test.setTimeout(120_000)
  // the owner makes the room on the start screen and names themself
  const owner = await browse.tab(await browse.machine('owner'), 'owner')
  await owner.getByLabel('Name of your new room').fill(room.name)
  await owner.getByLabel('Your name').fill('Ada')
  await owner.getByRole('button', { name: /^Decomposer\b/ }).click()
  await expectJoined(owner, 'decomposer')
  const bobLink = await invite(owner, 'Bob', true)
  const carolLink = await invite(owner, 'Carol')
  const observer = (link: string) => link.replace('role=executor', 'role=observer')
  const bob = await browse.tab(await browse.machine('bob'), 'bob', observer(bobLink))
  await expectJoined(bob, 'observer')
  const carol = await browse.tab(await browse.machine('carol'), 'carol', observer(carolLink))
  await expectJoined(carol, 'observer')
  await waitForPeers(owner, 2)

  // Bob's tab has the owner's controls: he removes Carol
  await bob.getByRole('button', { name: 'Invite', exact: true }).click()
  const list = bob.getByRole('region', { name: 'Invite' })
  await expect(
    list.locator('li', { hasText: 'Bob' }).getByText('co-owner', { exact: true }),
  ).toBeVisible()
  await expect(
    list.locator('li', { hasText: 'Ada' }).getByText('owner', { exact: true }),
  ).toBeVisible()
  await list.getByRole('button', { name: 'Remove Carol' }).click()
  await list.getByRole('button', { name: 'Yes, remove Carol' }).click()
  await expect(list.getByText(/removed by Bob at/)).toBeVisible()
  await expect(
    carol.getByRole('alert').filter({
      hasText: new RegExp(`^You were removed from “${room.name}” by Bob at .+\\. Nothing new`),
    }),
  ).toBeVisible()
})
