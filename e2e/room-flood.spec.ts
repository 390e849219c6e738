/**
 * A member who floods. It has the invite (its goals are sealed and signed
 * like anyone's) and, while four tabs run a plan, publishes 12 goals at
 * once: 3 dated a minute apart in the past (a liar spreading its goals to
 * pass the per-minute rule), 9 dated now (3 past the per-minute rule). The limits of
 * src/plan/goal-limits.ts hold on every tab: at most MAX_OPEN_GOALS_PER_AUTHOR
 * of its goals are live at any time, a new one starts only when one of its
 * goals settles, no more than GOALS_PER_AUTHOR_PER_WINDOW of those dated now
 * are ever worked on, those past it are held for good and never shown, and the honest
 * plan finishes.
 *
 * (The flood is sent oldest first, the order the rule takes them in, so no
 * backdated goal arrives after a later one has started: that race, and
 * floods past the gossip rate limit, are the simulator's and
 * swarm.node.test.ts's to try.)
 */
import type { Page } from '@playwright/test'
import { derivePlan, type DerivedPlan } from '../src/plan/derive'
import { byCreation } from '../src/plan/goal-limits'
import { PlanState } from '../src/plan/state'
import {
  GOAL_RATE_WINDOW_MS,
  GOALS_PER_AUTHOR_PER_WINDOW,
  MAX_OPEN_GOALS_PER_AUTHOR,
} from '../src/protocol/limits'
import type { PlanRecord } from '../src/protocol/records'
import { roomTopics } from '../src/protocol/topics'
import { links, startNodePeer, type NodePeer } from './fixtures/node-peer'
import { expect, test } from './fixtures/ui-app'
import { allowTools, pickRole, submitGoal, waitForPeers } from './fixtures/ui-steps'

const GOAL = 'Organise a neighbourhood tool library'
/** goals dated a minute apart in the past: each passes the per-minute rule, only the open-goal cap holds them */
const BACKDATED = 3
/** goals dated now: the per-minute rule holds all past GOALS_PER_AUTHOR_PER_WINDOW for good */
const DATED_NOW = GOALS_PER_AUTHOR_PER_WINDOW + 3
const FLOOD = BACKDATED + DATED_NOW
/** four tabs on the offline model, on 2 shared cores, with three flood goals beside the plan */
const PLAN_TIMEOUT_MS = 240_000

const recordsOf = (page: Page): Promise<PlanRecord[]> =>
  page.evaluate(() => window.murmuration!.records())

/** The plan as the tab derives it (the same pure rules, run on its records). */
async function planOf(page: Page): Promise<{ plan: DerivedPlan; state: PlanState }> {
  const state = new PlanState()
  for (const record of await recordsOf(page)) state.add(record)
  return { plan: derivePlan(state), state }
}

const settled = (status: string | undefined) =>
  status === 'done' || status === 'failed' || status === 'cancelled'

test('a member flooding goals costs the tabs at most what the limits allow; the plan finishes', async ({
  browse,
  room,
  app,
}) => {
  test.setTimeout(PLAN_TIMEOUT_MS + 120_000)
  const relay = (await (await fetch(new URL('/relay.json', app.url))).json()) as {
    multiaddrs: string[]
  }
  let flooder: NodePeer | undefined
  try {
    const mine = await browse.machine('mine')
    const tabs: Page[] = []
    for (const role of ['decomposer', 'scorer', 'scorer', 'executor'] as const) {
      const page = await browse.tab(mine, `${role}-${tabs.length}`)
      await pickRole(page, room, role)
      // the offline model's plans have code and live-data leaves: its person lets it do them
      if (role === 'executor') await allowTools(page, { code: true, knowledge: true })
      tabs.push(page)
    }
    const [decomposer] = tabs as [Page]
    await waitForPeers(decomposer, 3)

    flooder = await startNodePeer({
      relays: relay.multiaddrs,
      room: room.id,
      invite: room.fragment,
    })
    const member = flooder
    member.subscribe(roomTopics(room.id).plan)
    await member.waitFor(() => links(member.summary()) > 0, 60_000, 'a link to a tab')

    await submitGoal(decomposer, GOAL, 1)
    // the honest goal reaching the member by gossip shows a tab's subscription
    // reached it too (sent first on the same stream): a link alone does not,
    // and a flood published before it would reach no one
    await member.waitFor(() => member.messages.length > 0, 30_000, 'the honest goal, by gossip')
    const now = Date.now()
    const flood = [
      ...Array.from({ length: BACKDATED }, (_, i) => ({
        text: `Flood goal backdated ${i}`,
        createdAt: now - (BACKDATED - i) * GOAL_RATE_WINDOW_MS,
        maxDepth: 1,
      })),
      ...Array.from({ length: DATED_NOW }, (_, i) => ({
        text: `Flood goal now ${i}`,
        createdAt: now,
        maxDepth: 1,
      })),
    ]
    expect(await member.goals(flood)).toBeGreaterThan(0)
    const isFlood = (plan: DerivedPlan, id: string) =>
      plan.goals.get(id)?.createdBy === member.peerId

    // every tab, all along: never more than the limit live
    let maxLive = 0
    let honestDone = false
    const deadline = Date.now() + PLAN_TIMEOUT_MS
    while (!honestDone) {
      expect(Date.now(), 'the honest plan finished in time').toBeLessThan(deadline)
      honestDone = true
      for (const page of tabs) {
        const { plan } = await planOf(page)
        const live = plan.roots.filter(
          (id) => isFlood(plan, id) && !settled(plan.goals.get(id)?.status),
        )
        maxLive = Math.max(maxLive, live.length)
        expect(live.length).toBeLessThanOrEqual(MAX_OPEN_GOALS_PER_AUTHOR)
        const honest = plan.roots.find((id) => plan.goals.get(id)?.text === GOAL)
        if (plan.goals.get(honest ?? '')?.status !== 'done') honestDone = false
      }
      if (!honestDone) await new Promise((r) => setTimeout(r, 2_000))
    }
    expect(maxLive).toBeGreaterThan(0)

    // what the flood cost: a goal worked on only when an earlier one settled
    for (const page of tabs) {
      const { plan, state } = await planOf(page)
      const floodRoots = [...state.roots.values()].filter((g) => g.from === member.peerId)
      expect(floodRoots).toHaveLength(FLOOD)
      const worked = floodRoots.filter((g) => state.goalRecords(g.id).proposals.length > 0)
      const settledCount = floodRoots.filter((g) => settled(plan.goals.get(g.id)?.status)).length
      expect(worked.length).toBeLessThanOrEqual(settledCount + MAX_OPEN_GOALS_PER_AUTHOR)
      expect(worked.filter((g) => g.createdAt === now).length).toBeLessThanOrEqual(
        GOALS_PER_AUTHOR_PER_WINDOW,
      )
      console.log(
        `flood: ${worked.length} of ${FLOOD} goals worked on, ${settledCount} settled, ${plan.held.length} held`,
      )
      // Those dated now past the per-minute rule are held for good: the goals
      // of one author that count are always a prefix in (createdAt, id) order,
      // so the last DATED_NOW - GOALS_PER_AUTHOR_PER_WINDOW never count. (Other
      // held goals start counting as earlier ones settle: they may be on
      // screen a moment after this check's snapshot.)
      const forGood = floodRoots
        .filter((g) => g.createdAt === now)
        .sort(byCreation)
        .slice(GOALS_PER_AUTHOR_PER_WINDOW)
      expect(forGood).toHaveLength(DATED_NOW - GOALS_PER_AUTHOR_PER_WINDOW)
      for (const goal of forGood) {
        expect(plan.held).toContain(goal.id)
        await expect(page.getByText(goal.text, { exact: true })).toHaveCount(0)
      }
    }
  } finally {
    await flooder?.stop()
  }
})
