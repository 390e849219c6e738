import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { stamp, type GoalRecord } from '../protocol/records'
import { WARMUP_MS } from '../protocol/rules'
import { createRng } from '../sim/rng'
import { fakePeerId } from '../sim/swarm'
import { createMockLlmServer, type MockLlmServer } from '../../test/mock-llm/server'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BudgetLimits } from './budget'
import { CoreDriver } from './driver'
import { until } from './driver.test-support'
import { memorySpending, type SpendingPersistence } from './persist'
import { fileSpending } from './persist.node'

// The wiring: real token counts from a provider (the mock LLM server reports usage) reach the
// budget, the budget pauses the role core, and a raised cap resumes it.
const rng = createRng('budget-driver')
const [me, author] = [fakePeerId(rng), fakePeerId(rng)]
const NO_CAPS: BudgetLimits = {
  tokensPerGoal: null,
  tokensPerHour: null,
  usdPerGoal: null,
  usdPerHour: null,
}

let mock: MockLlmServer
let driver: CoreDriver | null = null
beforeAll(async () => {
  mock = await createMockLlmServer()
})
afterAll(() => mock.close())
afterEach(() => driver?.stop())

const goal = (text: string) =>
  stamp<GoalRecord>({ kind: 'goal', room: 'r', from: author, text, createdAt: 0, maxDepth: 2 })

describe('budget in the driver', () => {
  it('pauses the role at its hourly token cap with real counts, and resumes when raised', async () => {
    let clock = 0
    driver = new CoreDriver({
      config: {
        peerId: me,
        room: 'r',
        role: 'decomposer',
        capabilities: [],
        capacity: 1,
        model: 'openai-compatible/mock-model',
        offline: false,
      },
      model: { provider: 'openai-compatible', model: 'mock-model', baseUrl: `${mock.url}/v1` },
      budget: { ...NO_CAPS, tokensPerHour: 100 },
      publish: () => {},
      now: () => clock,
      tickMs: 20,
    })
    clock = WARMUP_MS
    const calls = () => mock.requests.filter((r) => r.taskKind === 'decompose').length
    const first = goal('Plan a garden')
    driver.deliver([{ type: 'record', record: first }])
    await until(() => driver!.activity().budget?.decision.paused === true, 'the pause')
    const budget = driver.activity().budget!
    expect(budget.decision.hits).toMatchObject([{ cap: 'tokensPerHour', limit: 100 }])
    // what the provider reported, not a guess: the activity counts the same calls
    const { inputTokens, outputTokens } = driver.activity().llm
    expect(budget.decision.hour.tokens).toBe(inputTokens + outputTokens)
    expect(budget.decision.hour.unpriced).toBe(1) // mock-model has no known price
    expect(budget.decision.costUnenforced).toBe(false) // no cost cap was set
    expect(calls()).toBe(1)

    driver.deliver([{ type: 'record', record: goal('Plan a party') }])
    await new Promise((r) => setTimeout(r, 500))
    expect(calls()).toBe(1)

    driver.setBudget({ ...NO_CAPS, tokensPerHour: 1_000_000 })
    await until(() => calls() === 2, 'the second goal’s split')
    expect(driver.activity().budget?.decision.paused).toBe(false)
  })

  it('keeps what it spent across a restart: a reload does not lift an hourly cap', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'murm-spending-'))
    try {
      for (const spending of [memorySpending(), fileSpending(join(dir, 'spending.json'))]) {
        await restartKeepsTheCap(spending)
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

async function restartKeepsTheCap(spending: SpendingPersistence): Promise<void> {
  mock.requests.length = 0
  let clock = 0
  const start = () =>
    new CoreDriver({
      config: {
        peerId: me,
        room: 'r',
        role: 'decomposer',
        capabilities: [],
        capacity: 1,
        model: 'openai-compatible/mock-model',
        offline: false,
      },
      model: { provider: 'openai-compatible', model: 'mock-model', baseUrl: `${mock.url}/v1` },
      budget: { ...NO_CAPS, tokensPerHour: 100 },
      spending,
      publish: () => {},
      now: () => clock,
      tickMs: 20,
    })
  const calls = () => mock.requests.filter((r) => r.taskKind === 'decompose').length
  driver = start()
  clock = WARMUP_MS
  driver.deliver([{ type: 'record', record: goal('Plan a garden') }])
  await until(() => driver!.activity().budget?.decision.paused === true, 'the pause')
  const spent = driver.activity().budget!.decision.hour.tokens
  // a reload after the save has landed (a save still in flight is lost with
  // the page; under load the new driver read the file before it was written)
  await driver.spendingSaved()
  driver.stop()

  // "reload": a new driver, same storage, a little later, and a new goal waiting
  clock += 60_000
  driver = start()
  clock += WARMUP_MS
  driver.deliver([{ type: 'record', record: goal('Plan a party') }])
  await until(() => driver!.activity().budget?.decision.paused === true, 'the pause after restart')
  expect(driver.activity().budget!.decision.hour.tokens).toBe(spent)
  await new Promise((r) => setTimeout(r, 300))
  expect(calls()).toBe(1)
  driver.stop()
  driver = null
}
