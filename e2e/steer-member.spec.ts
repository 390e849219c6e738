/**
 * A goal is its person's, not its tab's (issue 45), in Chromium with a real
 * relay, WebRTC and IndexedDB: two tabs opened from the same person's link
 * are one member; a goal submitted in the first is cancelled from the
 * second, and every tab (another person's too) shows it cancelled; the
 * other person's tab has no steering control for it.
 *
 * The room has one scorer, so no split is ever accepted (two votes are
 * needed): the goal cannot finish before it is cancelled.
 */
import type { Page } from '@playwright/test'
import { expect, test } from './fixtures/ui-app'
import { expectJoined, submitGoal, waitForPeers } from './fixtures/ui-steps'

const GOAL = 'Plan a board game evening'

const goalOf = (page: Page) =>
  page.evaluate(
    (text) => window.murmuration!.tree().goals.find((g) => g.text === text) ?? null,
    GOAL,
  )

/** The owner invites a person by name from the Invite panel and reads their link. */
async function invite(owner: Page, name: string): Promise<string> {
  await owner.getByRole('button', { name: 'Invite', exact: true }).click()
  await owner.getByLabel('Their name').fill(name)
  await owner.getByRole('button', { name: 'Invite someone' }).click()
  await expect(owner.getByText(`A new link for ${name}:`)).toBeVisible()
  const link = await owner.getByRole('textbox', { name: 'Share link' }).inputValue()
  await owner.getByRole('button', { name: 'Close' }).click()
  return link
}

test('a goal written in one tab is cancelled from the same person’s other tab; another person gets no control', async ({
  browse,
  room,
  app,
}) => {
  test.setTimeout(90_000)
  const mine = await browse.machine('owner')
  const first = await browse.tab(mine, 'owner-decomposer', room.link(app.origin, 'decomposer'))
  await expectJoined(first, 'decomposer')
  const second = await browse.tab(mine, 'owner-scorer', room.link(app.origin, 'scorer'))
  await expectJoined(second, 'scorer')
  const bobLink = await invite(first, 'Bob')
  const bob = await browse.tab(await browse.machine('bob'), 'bob-executor', bobLink)
  await expectJoined(bob, 'executor')
  await waitForPeers(first, 2)

  await submitGoal(first, GOAL, 1)
  // every tab has the goal; two tabs of one person are two PeerIds of one member
  for (const page of [second, bob]) {
    await expect.poll(() => goalOf(page).then((g) => g?.status ?? null)).not.toBeNull()
  }
  const written = (await goalOf(first))!
  const there = (await goalOf(second))!
  expect(there.createdBy).toBe(written.createdBy)
  expect(await second.evaluate(() => window.murmuration!.peerId)).not.toBe(written.createdBy)
  expect(there.createdByMember).toBe(room.owner.id)

  // the other tab of the same person steers it; another person's tab does not
  await expect(second.getByRole('button', { name: 'Cancel goal…' })).toBeVisible()
  await expect(second.getByRole('button', { name: 'Pause goal' })).toBeVisible()
  await expect(bob.getByRole('heading', { name: GOAL, level: 2 })).toBeVisible()
  await expect(bob.getByRole('button', { name: 'Cancel goal…' })).toHaveCount(0)
  await expect(bob.getByRole('button', { name: /^(Pause|Resume) goal/ })).toHaveCount(0)
  await expect(bob.getByLabel('Ask me before its splits are accepted')).toHaveCount(0)

  await second.getByRole('button', { name: 'Cancel goal…' }).click()
  await second.getByRole('button', { name: 'Yes, cancel the goal' }).click()
  // the cancel counts on every peer: the first tab, the second, and Bob's
  for (const page of [first, second, bob]) {
    await expect.poll(() => goalOf(page).then((g) => g?.status)).toBe('cancelled')
    // the plan's header badge (the tree's root row says it too)
    await expect(
      page.getByRole('region', { name: GOAL }).getByText('Cancelled', { exact: true }).first(),
    ).toBeVisible()
  }
})
