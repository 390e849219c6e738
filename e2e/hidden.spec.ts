/**
 * A frozen tab, end to end (PROTOCOL.md §5.3, "A peer that was away"): an
 * executor frozen mid-call, page and workers, for longer than a lease. Its
 * peers take it for gone and another executor takes its leaf over and
 * finishes it. Thawed, its call's answer arrives at last: published, that
 * epoch-0 result would outrank the successor's epoch-1 result and overturn
 * it after the roll-up; roles/lapse.ts holds it until a neighbour answered a
 * sync round, and drops it since the task was taken over.
 */
import { expect, type Page } from '@playwright/test'
import type { PlanTree, TaskView } from '../src/plan/tree'
import type { ResultRecord } from '../src/protocol/records'
import { LEASE_TIMEOUT_MS } from '../src/protocol/rules'
import { createMockLlmServer } from '../test/mock-llm/server'
import { freezeTab } from './fixtures/freeze'
import {
  expectSamePlan,
  firstToExecute,
  fiveTabsWithMockExecutors,
  GOAL,
  peerIdOf,
  recordsOf,
  test,
  treeOf,
  waitForMesh,
  waitForRootDone,
} from './fixtures/swarm'
import { submitGoal } from './fixtures/ui-steps'

/** Longer than a lease on every clock, whatever the last beat before the freeze. */
const MIN_FROZEN_MS = LEASE_TIMEOUT_MS + 3_000
/** Taken for gone (16 s), the lease out (21 s), the successor's call and its result's way back. */
const TAKEOVER_TIMEOUT_MS = 60_000

test.describe.configure({ timeout: 150_000 })

/** Every task of the tree (roll-ups and leaves, at every depth). */
function tasksOf(tree: PlanTree): TaskView[] {
  const walk = (goal: PlanTree['goals'][number]): TaskView[] => [
    goal.rollup,
    ...goal.slots.flatMap((slot) => [
      ...(slot.leaf ? [slot.leaf] : []),
      ...(slot.goal ? walk(slot.goal) : []),
    ]),
  ]
  return tree.goals.flatMap(walk)
}

/** Resolves when `page` (its own view) no longer counts `id` alive: no beat heard for three promised gaps. */
const takesForGone = (page: Page, id: string) =>
  page.waitForFunction(
    (gone) => !window.murmuration!.activity().swarm.some((p) => p.peerId === gone),
    id,
    { timeout: TAKEOVER_TIMEOUT_MS, polling: 250 },
  )

/** Resolves when `page` holds a record of `kind` for `task` at an epoch above 0. */
const laterEpoch = (page: Page, kind: 'claim' | 'result', task: string) =>
  page.waitForFunction(
    ([k, t]) =>
      window.murmuration!.records().some((r) => r.kind === k && r.task === t && r.epoch > 0),
    [kind, task] as const,
    { timeout: TAKEOVER_TIMEOUT_MS, polling: 250 },
  )

const seconds = (ms: number) => (ms / 1000).toFixed(1)

test('an executor frozen mid-call for longer than a lease: thawed, it drops its stale answer and its successor’s result stands', async ({
  browser,
  app: served,
  room,
}) => {
  const mock = await createMockLlmServer()
  try {
    const { pages, executors, observer } = await fiveTabsWithMockExecutors(
      browser,
      served,
      room,
      mock.url,
    )
    // execute calls hang until the first executor to start one is frozen: it is surely mid-call
    const release = mock.hold()
    await submitGoal(observer, GOAL, 2)
    const running = await firstToExecute(executors)
    const frozen = executors[running.index]!
    const successor = executors[1 - running.index]!
    const others = pages.filter((page) => page !== frozen)
    const [frozenId, successorId] = await Promise.all([peerIdOf(frozen), peerIdOf(successor)])
    const task = running.id.split(':')[1]!

    const ice = await freezeTab(frozen, /murmuration-executor/)
    const frozenAt = Date.now()
    // its answer now waits in the frozen tab's network stack; the successor's calls go through
    release()
    console.log(
      `frozen: ${ice.targets.map((t) => `${t.label} (${t.paused ? 'paused' : 'pause pending'})`).join(', ')}`,
    )
    // when the observer's link to it drops, for the figures (the links may also outlast the freeze)
    let linkDownAt: number | null = null
    void observer
      .waitForFunction(
        (id) => !window.murmuration!.connections().peers.some((p) => p.peerId === id),
        frozenId,
        { timeout: TAKEOVER_TIMEOUT_MS, polling: 250 },
      )
      .then(
        () => (linkDownAt ??= Date.now()),
        () => undefined,
      )

    // the freeze is real: no beat of it reaches anyone, every other tab takes it for gone
    await Promise.all(others.map((page) => takesForGone(page, frozenId)))
    const goneAt = Date.now()
    await laterEpoch(observer, 'claim', task)
    const takenOverAt = Date.now()
    await laterEpoch(observer, 'result', task)
    const finishedAt = Date.now()
    await new Promise((r) => setTimeout(r, Math.max(0, frozenAt + MIN_FROZEN_MS - Date.now())))

    // what the swarm had finished while it was away: back, it must not redo any of it
    const doneWhileAway = new Set(
      (await recordsOf(observer)).filter((r) => r.kind === 'result').map((r) => r.task),
    )
    await ice.thaw()
    const thawedAt = Date.now()
    await waitForMesh(pages)
    const linkedAt = Date.now()

    for (const page of pages) await waitForRootDone(page, GOAL)
    await expectSamePlan(pages, observer)

    const leaf = tasksOf(await treeOf(observer)).find((t) => t.id === task)
    const allResults = (await recordsOf(observer)).filter(
      (r): r is ResultRecord => r.kind === 'result',
    )
    const results = allResults.filter((r) => r.task === task)
    const redone = allResults.filter((r) => r.from === frozenId && doneWhileAway.has(r.task))
    const recent = (await frozen.evaluate(() => window.murmuration!.activity().recent)).map(
      (entry) => entry.text,
    )
    const lapse = recent.find((text) => /^Away \d+ s, longer than a lease/.test(text))
    const who = (id: string | null | undefined) =>
      id === frozenId ? 'frozen' : id === successorId ? 'successor' : `${id}`
    // before the assertions: a failing run shows them too
    console.log(
      [
        `frozen ${seconds(thawedAt - frozenAt)} s`,
        `its peers took it for gone after ${seconds(goneAt - frozenAt)} s`,
        `the observer's link to it dropped after ${linkDownAt === null || linkDownAt > thawedAt ? 'never (while frozen)' : `${seconds(linkDownAt - frozenAt)} s`}`,
        `its leaf was taken over after ${seconds(takenOverAt - frozenAt)} s and finished after ${seconds(finishedAt - frozenAt)} s`,
        `its links were all back ${seconds(linkedAt - thawedAt)} s after the thaw`,
        `results of its leaf: ${results.map((r) => `${who(r.from)}@${r.epoch}`).join(', ')}; counted: ${who(leaf?.resultBy)}`,
        `its activity: ${recent.filter((text) => /^(Away|Stopped|Dropped)/.test(text)).join(' | ')}`,
      ].join('\n'),
    )

    // the leaf's counted result is the successor's, of a later epoch...
    expect(leaf).toBeDefined()
    expect({ status: leaf!.status, counted: who(leaf!.resultBy) }).toEqual({
      status: 'done',
      counted: 'successor',
    })
    expect(leaf!.epoch).toBeGreaterThan(0)
    // ...and the frozen tab published none for it (its stale answer was dropped, not outranked)
    expect(results.map((r) => `${who(r.from)}@${r.epoch}`)).toEqual([`successor@${leaf!.epoch}`])
    // ...nor for anything else the swarm finished while it was away (back, it
    // first hears its neighbours, then who is alive, before it claims anything)
    expect(redone.map((r) => `${r.task.slice(0, 6)}@${r.epoch}`)).toEqual([])
    // it knew it had been away, on its own clock
    expect(lapse, `its activity: ${recent.join(' | ')}`).toBeDefined()
  } finally {
    await mock.close()
  }
})
