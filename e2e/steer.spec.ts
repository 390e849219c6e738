/**
 * People in the loop (issue 27), in real Chromium tabs with the mock LLM:
 * the author of a goal asks to approve its first split; every tab sees the
 * split wait for the author; the author vetoes it with a note, which reaches
 * the decomposer's prompt at the mock with the vetoed split; the next split
 * is approved and the plan finishes. Then the author pauses the goal and
 * sends a leaf back with a note: nothing is claimed while paused; on resume
 * the executor's prompt at the mock carries the note, the earlier result is
 * shown as superseded and the roll-up is written again from the new result.
 *
 * One test walks it all (one room, four tabs), so the setup is paid once.
 */
import type { Page } from '@playwright/test'
import type { MockLlmServer } from '../test/mock-llm/server'
import type { GoalView, PlanTree } from '../src/plan/tree'
import { expect, screenshot, test } from './fixtures/ui-app'
import { mockModel, openModelTabs, submitGoal, waitForPeers } from './fixtures/ui-steps'

const GOAL = 'Plan a small herb garden'
// no quotes or markup: the mock's log holds the prompts as JSON
const VETO_NOTE = 'VETO-7 use bigger steps and name the herbs'
const REDO_NOTE = 'REDO-9 cite sources for each herb'
/** Tabs of one test share 2 cores: a round of a one-level plan takes some seconds. */
const ROUND_TIMEOUT_MS = 60_000

const treeOf = (page: Page): Promise<PlanTree> => page.evaluate(() => window.murmuration!.tree())
async function goalOf(page: Page): Promise<GoalView | undefined> {
  return (await treeOf(page)).goals.find((g) => g.text === GOAL)
}

/** Request bodies the mock answered for one task kind, as JSON text. */
function bodies(mock: MockLlmServer, kind: string): string[] {
  return mock.requests
    .filter((r) => r.taskKind === kind && r.status === 200)
    .map((r) => JSON.stringify(r.body))
}

async function waitForStatus(page: Page, status: GoalView['status']): Promise<void> {
  await expect
    .poll(async () => (await goalOf(page))?.status, {
      timeout: ROUND_TIMEOUT_MS,
      intervals: [250],
    })
    .toBe(status)
}

test('the author approves, vetoes with a note, redoes a leaf with a note, pauses and resumes', async ({
  browse,
  room,
  mockLlm,
  app,
}) => {
  test.setTimeout(180_000)
  mockLlm.setBehaviour({ mode: 'shape', branching: 2, capability: 'can_write_text' })
  const mock = mockModel(mockLlm.url)
  const mine = await browse.machine('mine')
  const tabs = await openModelTabs(
    (name, role) => browse.tab(mine, name, room.link(app.origin, role)),
    [
      ['author', 'decomposer'],
      ['scorer', 'scorer'],
      ['scorer2', 'scorer'],
      ['executor', 'executor'],
    ],
    mock,
  )
  const { author, scorer, executor } = tabs as Record<string, Page>
  await waitForPeers(author!, 3)

  await test.step('the first split waits for the author; others see whom it waits on', async () => {
    await submitGoal(author!, GOAL, 1, 'For the first split')
    await waitForStatus(author!, 'awaiting-approval')
    await expect(author!.getByText("Waiting for the author's approval (you)").first()).toBeVisible()
    await author!.getByRole('button', { name: 'Veto split…' }).waitFor()
    // another tab of the same person (the same link: one member, issue 45) sees the wait and
    // may approve too; another person's tab has no control (e2e/steer-member.spec.ts)
    const group = scorer!.getByRole('group', { name: 'Approve or veto this split' })
    await expect(group).toContainText("Waiting for the author's approval")
    await expect(group.getByRole('button', { name: 'Approve split' })).toBeVisible()
    // nothing under a waiting split runs
    expect(bodies(mockLlm, 'execute')).toEqual([])
    await screenshot(author!, 'steer-awaiting-approval')
  })

  const vetoed = (await goalOf(author!))!.proposals[0]!.subgoals[0]!.text
  await test.step('a veto with a note reaches the decomposer’s prompt with the vetoed split', async () => {
    await author!.getByRole('button', { name: 'Veto split…' }).click()
    await author!.getByLabel('Note for the decomposers (optional)').fill(VETO_NOTE)
    await author!.getByRole('button', { name: 'Send veto' }).click()
    await expect
      .poll(() => bodies(mockLlm, 'decompose').filter((b) => b.includes(VETO_NOTE)), {
        timeout: ROUND_TIMEOUT_MS,
      })
      .toHaveLength(1)
    expect(bodies(mockLlm, 'decompose').find((b) => b.includes(VETO_NOTE))).toContain(vetoed)
    // the tab's view of the plan follows its core a moment later (the core
    // made the decompose call above): wait for the view, do not read it once
    await expect
      .poll(async () => (await goalOf(author!))?.vetoes, { timeout: ROUND_TIMEOUT_MS })
      .toEqual([{ note: VETO_NOTE, subgoals: expect.arrayContaining([vetoed]) }])
    await waitForStatus(author!, 'awaiting-approval')
  })

  await test.step('an approval lets the split run to the end', async () => {
    await author!.getByRole('button', { name: 'Approve split' }).click()
    await waitForStatus(author!, 'done')
  })

  const before = (await goalOf(author!))!
  const leaf = before.slots[0]!
  await test.step('held: a leaf sent back with a note is not claimed', async () => {
    // a done goal offers what applies to it: sending a part back, and holding redos first
    await expect(author!.getByRole('button', { name: /^Pause goal/ })).toHaveCount(0)
    await expect(author!.getByText('To change a part, select it in the tree')).toBeVisible()
    await author!.getByRole('button', { name: 'Hold redos until I resume' }).click()
    await expect(
      author!.getByRole('button', { name: 'Resume: redo what was sent back' }),
    ).toBeVisible()
    // the executor has heard the pause before the redo comes
    await expect.poll(async () => (await goalOf(executor!))?.paused, { timeout: 10_000 }).toBe(true)
    await author!.getByRole('treeitem', { name: 'Part 1 of 2' }).click()
    await author!.getByRole('button', { name: 'Redo with a note…' }).click()
    await author!.getByLabel('What should the executor do differently?').fill(REDO_NOTE)
    await author!.getByRole('button', { name: 'Send back' }).click()
    await expect
      .poll(async () => (await goalOf(executor!))?.slots[0]?.superseded.length, {
        timeout: 10_000,
      })
      .toBe(1)
    // a first-choice executor claims an open leaf within a second of hearing of it
    await executor!.waitForTimeout(3_000)
    const paused = (await goalOf(author!))!
    expect(paused.slots[0]!.leaf!.status).toBe('open')
    expect(paused.slots[0]!.leaf!.holder).toBeNull()
    expect(bodies(mockLlm, 'execute').filter((b) => b.includes(REDO_NOTE))).toEqual([])
    await expect(author!.getByText('Paused by its author').first()).toBeVisible()
  })

  await test.step('resumed: the executor redoes it with the note; the roll-up uses the new result', async () => {
    await author!.getByRole('button', { name: 'Resume goal' }).click()
    await expect
      .poll(() => bodies(mockLlm, 'execute').filter((b) => b.includes(REDO_NOTE)).length, {
        timeout: ROUND_TIMEOUT_MS,
      })
      .toBe(1)
    await waitForStatus(author!, 'done')
    const after = (await goalOf(author!))!
    const redone = after.slots[0]!
    expect(redone.superseded.map((s) => [s.note, s.task.output])).toEqual([
      [REDO_NOTE, leaf.leaf!.output],
    ])
    expect(redone.leaf!.output).toContain(REDO_NOTE)
    expect(after.supersededRollup).toBe(before.rollup.output)
    expect(after.rollup.output).not.toBe(before.rollup.output)
    // the new roll-up was written from the new result
    expect(bodies(mockLlm, 'rollup').filter((b) => b.includes(REDO_NOTE))).toHaveLength(1)
    await author!.getByRole('treeitem', { name: 'Part 1 of 2' }).click()
    const old = author!.getByText(`Superseded result 1: sent back with “${REDO_NOTE}”`)
    await expect(old).toBeVisible()
    await screenshot(author!, 'steer-redone')
  })
})
