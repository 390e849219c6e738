/**
 * A headless role whose key is rejected takes no task with it again, and
 * finds out by itself when the key works (issue 56): its driver checks the
 * model again now and then (model-recheck.ts) with one cheap call that is no
 * task, instead of claiming a task with the rejected key every 30 s.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createMockLlmServer, type MockLlmServer } from '../../test/mock-llm/server'
import { modelVerdict } from '../llm/model-check'
import { stamp, type GoalRecord } from '../protocol/records'
import { WARMUP_MS } from '../protocol/rules'
import { HEALTH_RETRY_MS } from '../roles/model-health'
import { createRng } from '../sim/rng'
import { fakePeerId } from '../sim/swarm'
import { CoreDriver } from './driver'
import { until } from './driver.test-support'

const KEY = 'sk-recheck-right'
const WRONG = 'sk-recheck-wrong'
const rng = createRng('model-recheck')
const [me, author] = [fakePeerId(rng), fakePeerId(rng)]

let mock: MockLlmServer
let driver: CoreDriver | null = null
beforeAll(async () => {
  mock = await createMockLlmServer({ keys: [KEY] })
})
afterAll(() => mock.close())
afterEach(() => driver?.stop())

describe('a broken model in a headless role', () => {
  it('claims no work with a rejected key however long it waits, and resumes once a re-check finds the key works', async () => {
    let clock = 0
    const model = {
      provider: 'openai-compatible' as const,
      model: 'mock-model',
      baseUrl: `${mock.url}/v1`,
      apiKey: WRONG,
    }
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
      model,
      publish: () => {},
      // what the agent's runtime passes (runtime/node.ts)
      checkModel: (checked, signal) => modelVerdict(checked, {}, signal),
      recheckMs: 150,
      now: () => clock,
      tickMs: 20,
    })
    clock = WARMUP_MS
    const requests = (kind: string, status: number) =>
      mock.requests.filter((r) => r.taskKind === kind && r.status === status).length
    const goal = stamp<GoalRecord>({
      kind: 'goal',
      room: 'r',
      from: author,
      text: 'Plan a garden',
      createdAt: 0,
      maxDepth: 2,
    })
    driver.deliver([{ type: 'record', record: goal }])
    await until(() => driver!.activity().modelStatus.state === 'broken', 'the broken model')
    expect(driver.activity().modelStatus).toMatchObject({ by: 'call', kind: 'auth' })
    expect(driver.activity().healthy).toBe(false)
    const tried = requests('decompose', 401)
    expect(tried).toBeGreaterThan(0)

    // minutes pass on the role's clock: it never tries the goal again with that key, but
    // it checks the model (the check's call is a score of a tiny split: no task of the plan)
    // (a second at a time: a longer jump would look like a frozen tab to the core, lapse.ts)
    for (let i = 0; i < (4 * HEALTH_RETRY_MS) / 1_000; i++) {
      clock += 1_000
      await new Promise((r) => setTimeout(r, 25))
    }
    await until(() => requests('score', 401) >= 2, 'two re-checks')
    expect(requests('decompose', 401)).toBe(tried)
    expect(driver.activity().modelStatus.state).toBe('broken')

    // the provider accepts the key now: a re-check finds it, and the goal is split
    mock.setBehaviour({ keys: [KEY, WRONG] })
    await until(() => requests('decompose', 200) === 1, 'the split with the working key')
    expect(driver.activity().healthy).toBe(true)
    expect(driver.activity().modelStatus.state).toBe('works')
  })
})
