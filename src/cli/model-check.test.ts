import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockLlmServer, type MockLlmServer } from '../../test/mock-llm/server'
import {
  checkModel,
  MODEL_CHECK_MAX_OUTPUT_TOKENS,
  MODEL_CHECK_TIMEOUT_MS,
  ModelCheckError,
  waitingLine,
} from './model-check'

const KEY = 'sk-check-test'
let mock: MockLlmServer
beforeAll(async () => {
  mock = await createMockLlmServer({ keys: [KEY] })
})
afterAll(async () => {
  await mock.close()
})

describe('checkModel', () => {
  it('makes no call for the offline model, and says it is offline', async () => {
    const check = await checkModel({ provider: 'offline', model: 'offline-v1' })
    expect(check.status).toBe('offline')
  })

  it('makes one small call and reports success', async () => {
    const before = mock.requests.length
    const check = await checkModel({
      provider: 'openai',
      model: 'gpt-4.1-mini',
      apiKey: KEY,
      baseUrl: `${mock.url}/v1`,
    })
    expect(check.status).toBe('ok')
    expect(mock.requests.length - before).toBe(1)
    const body = mock.requests.at(-1)!.body as Record<string, unknown>
    // the cap reaches the provider (OpenAI chat: max_tokens or max_completion_tokens)
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(MODEL_CHECK_MAX_OUTPUT_TOKENS)
  })

  it('fails with kind auth on a wrong key', async () => {
    const check = checkModel({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      apiKey: 'wrong',
      baseUrl: `${mock.url}/v1`,
    })
    await expect(check).rejects.toBeInstanceOf(ModelCheckError)
    await expect(check).rejects.toMatchObject({ kind: 'auth' })
  })

  it('fails with kind unreachable when nothing listens', async () => {
    const check = checkModel({
      provider: 'openai-compatible',
      model: 'llama3.1',
      baseUrl: 'http://127.0.0.1:9/v1',
    })
    await expect(check).rejects.toMatchObject({ kind: 'unreachable' })
  })

  it('waits for a server that is slow to answer (a local one loading its model), saying so', async () => {
    // far longer than a minute: a large local model loads for minutes
    expect(MODEL_CHECK_TIMEOUT_MS).toBeGreaterThanOrEqual(5 * 60_000)
    const release = mock.hold()
    const waited: number[] = []
    const check = checkModel(
      { provider: 'openai-compatible', model: 'llama3.1', apiKey: KEY, baseUrl: `${mock.url}/v1` },
      {},
      MODEL_CHECK_TIMEOUT_MS,
      { everyMs: 100, onWaiting: (seconds) => waited.push(seconds) },
    )
    await new Promise((resolve) => setTimeout(resolve, 450))
    release()
    await expect(check).resolves.toMatchObject({ status: 'ok' })
    expect(waited.length).toBeGreaterThanOrEqual(3)
    const count = waited.length
    await new Promise((resolve) => setTimeout(resolve, 250))
    // the ticker stops with the check
    expect(waited.length).toBe(count)
    expect(waitingLine('openai-compatible/llama3.1', 30)).toBe(
      '  checking openai-compatible/llama3.1 … (still waiting, 30 s: a local server may be loading the model)',
    )
  })
})
