/**
 * The execute tool loop over real HTTP: the real AI SDK providers talk to
 * the mock LLM (Anthropic Messages, OpenAI Chat Completions and Responses),
 * programs run in the real Node sandbox. What the model says it computed is
 * not trusted: the test program's output appears only if it really ran.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createMockLlmServer, type MockLlmServer } from '../../test/mock-llm/server'
import { createNodeSandbox } from '../sandbox/sandbox.node'
import type { CodeSandbox } from '../sandbox/types'
import { costUsd } from './pricing'
import { createProvider } from './provider'
import { runLlmTask } from './run-task'
import { MAX_TOOL_STEPS, type TaskTools } from './tools'
import type { LlmTask, ModelConfig } from './types'

/** A program whose output no model could guess without running it. */
const PROGRAM = [
  'let sum = 0',
  'for (let i = 1; i <= 1000; i++) sum += i * i',
  "console.log('sum of squares to 1000:', sum)",
].join('\n')
const PRINTED = 'sum of squares to 1000: 333833500'

type ExecuteTask = Extract<LlmTask, { kind: 'execute' }>

const codeLeaf: ExecuteTask = {
  kind: 'execute',
  path: ['Plan a garden'],
  task: 'Compute the sum of the squares from 1 to 1000',
  capability: 'can_run_code',
  dependencies: [],
}
const liveLeaf: ExecuteTask = {
  kind: 'execute',
  path: ['Plan a trip to Kyoto'],
  task: 'Find current train fares from Tokyo to Kyoto',
  capability: 'can_query_api',
  dependencies: [],
}

let mock: MockLlmServer
let sandbox: CodeSandbox
beforeAll(async () => {
  mock = await createMockLlmServer({ keys: ['k'] })
  sandbox = createNodeSandbox()
})
afterAll(async () => {
  sandbox.close()
  await mock.close()
})
afterEach(() => {
  mock.requests.length = 0
  mock.setBehaviour({ tools: 'use', toolCode: PROGRAM, codeRounds: 1 })
})

const anthropic = (): ModelConfig => ({
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  apiKey: 'k',
  baseUrl: `${mock.url}/v1`,
})
const openai = (): ModelConfig => ({
  provider: 'openai',
  model: 'gpt-4.1-mini',
  apiKey: 'k',
  baseUrl: `${mock.url}/v1`,
})
const tools = (extra: Partial<TaskTools> = {}): TaskTools => ({
  sandbox: () => sandbox,
  search: true,
  knowledge: false,
  ...extra,
})
const run = (task: ExecuteTask, config: ModelConfig, taskTools: TaskTools = tools()) =>
  runLlmTask(task, createProvider(config), { tools: taskTools, backoffMs: 0 })

describe('the execute tool loop, over HTTP to the mock LLM', () => {
  for (const config of [anthropic, openai]) {
    it(`runs the model's program in the sandbox and publishes its real output (${config.name})`, async () => {
      mock.setBehaviour({ toolCode: PROGRAM })
      const outcome = await run(codeLeaf, config())
      expect(outcome.ok).toBe(true)
      if (!outcome.ok || outcome.kind !== 'execute') return
      expect(outcome.value.steps).toEqual([
        expect.objectContaining({ type: 'code', code: PROGRAM, exit: 0, error: '' }),
      ])
      const [step] = outcome.value.steps!
      expect(step?.type === 'code' && step.stdout.trim()).toBe(PRINTED)
      // the answer quotes the stdout the tool result carried back
      expect(outcome.value.output).toContain(PRINTED)
      const llm = mock.requests.filter((r) => r.taskKind === 'execute')
      expect(llm.map((r) => r.tool)).toEqual(['code-call', 'answer-after-code'])
      expect(llm[1]!.path).toBe(
        config().provider === 'openai' ? '/v1/chat/completions' : '/v1/messages',
      )
      // both calls' tokens count
      expect(outcome.usage.inputTokens).toBeGreaterThan(0)
    })
  }

  it('reports a failing program to the model and keeps its error in the step', async () => {
    mock.setBehaviour({ toolCode: 'throw new Error("no such fare")' })
    const outcome = await run(codeLeaf, anthropic())
    expect(outcome.ok && outcome.kind === 'execute' && outcome.value.steps?.[0]).toMatchObject({
      type: 'code',
      exit: 1,
      error: expect.stringContaining('no such fare'),
    })
  })

  for (const [config, path] of [
    [anthropic, '/v1/messages'],
    [openai, '/v1/responses'],
  ] as const) {
    it(`searches with the provider's own web search and keeps the sources (${config.name})`, async () => {
      const outcome = await run(liveLeaf, config())
      expect(outcome.ok).toBe(true)
      if (!outcome.ok || outcome.kind !== 'execute') return
      expect(outcome.value.steps).toEqual([
        {
          type: 'search',
          query: liveLeaf.task,
          sources: [
            { title: 'Mock result one', url: 'https://example.org/one' },
            { title: 'Mock result two', url: 'https://example.org/two' },
          ],
        },
      ])
      expect(outcome.value.output).toContain('https://example.org/one')
      expect(outcome.tools).toEqual({ webSearches: 1 })
      // a search is priced per call, on top of the tokens
      const tokensOnly = costUsd(outcome.usage)!
      expect(costUsd(outcome.usage, outcome.tools)).toBeCloseTo(tokensOnly + 0.01, 6)
      expect(mock.requests.filter((r) => r.taskKind === 'execute').map((r) => r.path)).toEqual([
        path,
      ])
    })
  }

  it('ends at the step limit with an answer: the last call has tools off', async () => {
    mock.setBehaviour({ toolCode: PROGRAM, codeRounds: 1_000 })
    const outcome = await run(codeLeaf, openai())
    expect(outcome.ok).toBe(true)
    if (!outcome.ok || outcome.kind !== 'execute') return
    expect(mock.requests.filter((r) => r.taskKind === 'execute')).toHaveLength(MAX_TOOL_STEPS)
    expect(outcome.value.steps).toHaveLength(MAX_TOOL_STEPS - 1)
    expect(outcome.value.output).toContain(PRINTED)
  })

  it('ends the loop when the budget says a cap was reached, without an answer', async () => {
    mock.setBehaviour({ toolCode: PROGRAM, codeRounds: 1_000 })
    const seen: number[] = []
    const outcome = await run(
      codeLeaf,
      anthropic(),
      tools({
        budget: (spent) => {
          seen.push(spent.inputTokens + spent.outputTokens)
          return seen.length >= 2 ? "this goal's budget cap was reached" : null
        },
      }),
    )
    expect(outcome.ok).toBe(false)
    if (outcome.ok) return
    expect(outcome.budgetStopped).toBe(true)
    expect(outcome.errorKind).toBe('rate-limit') // its own limit: no attempt at the task
    expect(outcome.error).toContain('budget cap')
    expect(outcome.attempts).toBe(1)
    expect(mock.requests.filter((r) => r.taskKind === 'execute')).toHaveLength(2)
    // what the steps spent was counted, and grew step by step
    expect(seen[1]!).toBeGreaterThan(seen[0]!)
    expect(outcome.usage.inputTokens).toBeGreaterThan(0)
  })

  for (const config of [anthropic, openai]) {
    it(`falls back to text for good when the server rejects tools (${config.name})`, async () => {
      mock.setBehaviour({ tools: 'reject' })
      const provider = createProvider(config())
      expect(provider.toolSupport()).toEqual({ code: true, search: true })
      const outcome = await runLlmTask(codeLeaf, provider, { tools: tools(), backoffMs: 0 })
      expect(outcome.ok).toBe(true)
      expect(outcome.ok && outcome.kind === 'execute' && outcome.value.steps).toBeUndefined()
      expect(provider.toolSupport()).toEqual({ code: false, search: false })
      const statuses = mock.requests.filter((r) => r.taskKind !== undefined || r.status === 400)
      expect(statuses.map((r) => r.status)).toEqual([400, 200])
      // and the next call does not offer tools at all
      mock.requests.length = 0
      await runLlmTask(codeLeaf, provider, { tools: tools(), backoffMs: 0 })
      expect(mock.requests.map((r) => r.status)).toEqual([200])
    })
  }
})

describe('the offline model with code on', () => {
  it('runs the program its answer shows in the sandbox and quotes exactly what it printed', async () => {
    const provider = createProvider({ provider: 'offline', model: 'offline-v1' }, { latencyMs: 0 })
    const outcome = await runLlmTask(codeLeaf, provider, { tools: tools(), seed: 'p1' })
    expect(outcome.ok).toBe(true)
    if (!outcome.ok || outcome.kind !== 'execute') return
    expect(outcome.value.steps).toHaveLength(1)
    const step = outcome.value.steps![0]!
    expect(step).toMatchObject({ type: 'code', exit: 0 })
    // the leaf names a sum over a range: the offline model computes it, and the sandbox printed it
    const stdout = step.type === 'code' ? step.stdout : ''
    expect(stdout).toBe(
      `${PRINTED.replace('sum of squares to 1000', 'the sum of the squares from 1 to 1000')}\n`,
    )
    const output = outcome.value.output
    expect(output).toContain(
      `### What ran\n\n\`\`\`js\n${step.type === 'code' ? step.code : ''}\n\`\`\``,
    )
    expect(output).toContain(`### What it printed (exit 0)\n\n\`\`\`text\n${stdout.trim()}\n\`\`\``)
    expect(output).toContain('It ran a program that adds up the squares from 1 to 1000')
    expect(output).not.toContain('Not run')
  })

  it('answers a live-data leaf from knowledge, marked so, when its person allows that', async () => {
    const provider = createProvider({ provider: 'offline', model: 'offline-v1' }, { latencyMs: 0 })
    const outcome = await runLlmTask(liveLeaf, provider, {
      tools: { search: true, knowledge: true },
      seed: 'p1',
    })
    expect(outcome.ok && outcome.kind === 'execute' && outcome.value.steps).toEqual([
      { type: 'knowledge' },
    ])
    expect(outcome.ok && outcome.value.output).toMatch(/^> Not checked live/)
  })
})
