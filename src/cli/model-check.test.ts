import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockLlmServer, type MockLlmServer } from '../../test/mock-llm/server'
import { checkModel, MODEL_CHECK_MAX_OUTPUT_TOKENS, ModelCheckError } from './model-check'

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
})
