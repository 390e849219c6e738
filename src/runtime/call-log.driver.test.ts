import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { stamp, type GoalRecord } from '../protocol/records'
import { WARMUP_MS } from '../protocol/rules'
import { createRng } from '../sim/rng'
import { fakePeerId } from '../sim/swarm'
import { createMockLlmServer, type MockLlmServer } from '../../test/mock-llm/server'
import { REDACTED, type CallEntry } from './call-log'
import { CoreDriver } from './driver'
import { until } from './driver.test-support'

// The wiring: a role's real LLM call (OpenAI's wire format, over HTTP, with a key) reaches
// the call log with the exact prompts and reply the server saw, and without the key.
const KEY = 'sk-call-log-test-4be1c09f7d2a'
const rng = createRng('call-log-driver')
const [me, author] = [fakePeerId(rng), fakePeerId(rng)]

let mock: MockLlmServer
let driver: CoreDriver | null = null
beforeAll(async () => {
  mock = await createMockLlmServer({ keys: [KEY] })
})
afterAll(() => mock.close())
afterEach(() => driver?.stop())

describe('the call log in the driver', () => {
  it('gets each call as the server saw it, with its goal, and never the key', async () => {
    const calls: CallEntry[] = []
    let clock = 0
    driver = new CoreDriver({
      config: {
        peerId: me,
        room: 'r',
        role: 'decomposer',
        capabilities: [],
        capacity: 1,
        model: 'openai/gpt-4.1-mini',
        offline: false,
      },
      model: { provider: 'openai', model: 'gpt-4.1-mini', apiKey: KEY, baseUrl: `${mock.url}/v1` },
      publish: () => {},
      onCall: (call) => calls.push(call),
      now: () => clock,
      tickMs: 20,
    })
    clock = WARMUP_MS
    // a person pasted their key into the goal by mistake: it reaches the model, not the log
    const goal = stamp<GoalRecord>({
      kind: 'goal',
      room: 'r',
      from: author,
      text: `Plan a garden (my key is ${KEY})`,
      createdAt: 0,
      maxDepth: 2,
    })
    driver.deliver([{ type: 'record', record: goal }])
    await until(() => calls.length === 1, 'the decompose call in the log')

    const [call] = calls
    const seen = mock.requests.find((r) => r.taskKind === 'decompose')!
    expect(seen.headers.authorization).toBe(`Bearer ${KEY}`)
    const body = seen.body as { messages: { role: string; content: string }[] }
    const sent = (role: string) => body.messages.find((m) => m.role === role)!.content
    expect(call).toMatchObject({ kind: 'decompose', ok: true, goal: goal.id, node: goal.id })
    expect(call!.system).toBe(sent('system'))
    const reply = (JSON.parse(seen.reply!) as { choices: { message: { content: string } }[] })
      .choices[0]!.message.content
    // the prompt and reply are the ones sent and received, but for the key (the model echoed it)
    const withoutKey = (text: string) => text.split(KEY).join(REDACTED)
    expect(sent('user')).toContain(KEY)
    expect(reply).toContain(KEY)
    expect(call!.attempts[0]!.prompt).toBe(withoutKey(sent('user')))
    expect(call!.attempts[0]!.reply).toBe(withoutKey(reply))
    expect(call!.attempts[0]!.output).toEqual(JSON.parse(withoutKey(reply)))
    expect(JSON.stringify(calls)).not.toContain(KEY)
    expect(call!.inputTokens).toBeGreaterThan(0)
  })
})
