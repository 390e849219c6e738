import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockLlmServer, type MockLlmServer } from '../../test/mock-llm/server'
import { addressSpaceOf, isLocalNetworkRequest } from './address-space'
import {
  classifyAnswer,
  diagnoseNoAnswer,
  probeModel,
  probeRequest,
  PROBE_MAX_OUTPUT_TOKENS,
  type PageContext,
} from './model-probe'

const LOOPBACK_PAGE: PageContext = { protocol: 'http:', hostname: '127.0.0.1', secure: true }
const LAN_PAGE: PageContext = { protocol: 'http:', hostname: '192.168.1.20', secure: false }
const LAN_HTTPS_PAGE: PageContext = { protocol: 'https:', hostname: '192.168.1.20', secure: true }
const PUBLIC_PAGE: PageContext = { protocol: 'http:', hostname: '203.0.113.5', secure: false }

describe('addressSpaceOf', () => {
  it.each([
    ['localhost', 'loopback'],
    ['app.localhost', 'loopback'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.77.0.1', 'local'],
    ['172.16.0.1', 'local'],
    ['172.32.0.1', 'public'],
    ['192.168.1.5', 'local'],
    ['169.254.3.4', 'local'],
    ['[fd00::1]', 'local'],
    ['[fe80::1]', 'local'],
    ['[::ffff:192.168.0.1]', 'local'],
    ['printer.local', 'local'],
    ['8.8.8.8', 'public'],
    ['192.0.2.2', 'public'],
    ['[2001:db8::1]', 'public'],
    ['api.openai.com', 'unknown'],
  ])('%s is %s', (host, space) => {
    expect(addressSpaceOf(host)).toBe(space)
  })

  it('calls a request local-network only toward a more private space', () => {
    expect(isLocalNetworkRequest('10.77.0.1', '127.0.0.1')).toBe(true)
    expect(isLocalNetworkRequest('203.0.113.5', '192.168.1.9')).toBe(true)
    expect(isLocalNetworkRequest('mybox', 'localhost')).toBe(true)
    expect(isLocalNetworkRequest('127.0.0.1', 'localhost')).toBe(false)
    expect(isLocalNetworkRequest('192.168.1.20', '192.168.1.9')).toBe(false)
    expect(isLocalNetworkRequest('192.168.1.20', 'api.anthropic.com')).toBe(false)
  })
})

describe('diagnoseNoAnswer', () => {
  const url = (u: string) => new URL(u)
  it('a plain-http page on a public address calling this computer is Chromium’s LNA block', () => {
    expect(diagnoseNoAnswer(PUBLIC_PAGE, url('http://localhost:11434/v1'), 'skipped')).toBe(
      'local-network-blocked',
    )
    expect(diagnoseNoAnswer(PUBLIC_PAGE, url('http://192.168.1.9:1234/v1'), 'skipped')).toBe(
      'local-network-blocked',
    )
  })
  it('from a LAN page to loopback nobody listening and a block look alike: both are said', () => {
    expect(diagnoseNoAnswer(LAN_PAGE, url('http://localhost:11434/v1'), 'failed')).toBe(
      'unreachable-or-blocked',
    )
    expect(diagnoseNoAnswer(LAN_PAGE, url('http://127.0.0.1:11434/v1'), 'opaque')).toBe('cors')
  })
  it('a secure public page calling this computer needs the permission', () => {
    expect(
      diagnoseNoAnswer(
        { ...PUBLIC_PAGE, protocol: 'https:', secure: true },
        url('http://127.0.0.1:11434/v1'),
        'skipped',
      ),
    ).toBe('local-network-permission')
  })
  it('an https page calling plain http on another machine is mixed content', () => {
    expect(diagnoseNoAnswer(LAN_HTTPS_PAGE, url('http://192.168.1.9:1234/v1'), 'failed')).toBe(
      'mixed-content',
    )
  })
  it('otherwise an opaque no-cors answer means CORS, none means unreachable', () => {
    expect(diagnoseNoAnswer(LOOPBACK_PAGE, url('http://127.0.0.1:1/v1'), 'opaque')).toBe('cors')
    expect(diagnoseNoAnswer(LOOPBACK_PAGE, url('http://127.0.0.1:1/v1'), 'failed')).toBe(
      'unreachable',
    )
    expect(diagnoseNoAnswer(LAN_PAGE, url('https://api.openai.com/v1'), 'failed')).toBe(
      'unreachable',
    )
  })
})

describe('classifyAnswer', () => {
  const o = 'http://x'
  it('names a wrong key, an unknown model, a wrong path, rate limits', () => {
    expect(
      classifyAnswer(
        { provider: 'openai', model: 'm' },
        401,
        '{"error":{"message":"bad key"}}',
        {},
        5,
        o,
      ),
    ).toMatchObject({ state: 'failed', problem: 'auth', status: 401, detail: 'bad key' })
    expect(
      classifyAnswer(
        { provider: 'openai-compatible', model: 'llama9' },
        404,
        '{"error":{"message":"model \\"llama9\\" not found, try pulling it first"}}',
        {},
        5,
        o,
      ),
    ).toMatchObject({ problem: 'unknown-model', status: 404 })
    expect(
      classifyAnswer(
        { provider: 'anthropic', model: 'claude-x' },
        404,
        '{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}',
        {},
        5,
        o,
      ),
    ).toMatchObject({ problem: 'unknown-model' })
    expect(
      classifyAnswer(
        { provider: 'openai-compatible', model: 'm' },
        404,
        'Cannot POST /chat/completions',
        {},
        5,
        o,
      ),
    ).toMatchObject({
      problem: 'not-found',
    })
    expect(
      classifyAnswer({ provider: 'openai', model: 'm' }, 429, '{}', { 'retry-after': '3' }, 5, o),
    ).toEqual({
      state: 'rate-limited',
      ms: 5,
      detail: '{}',
      retryAfterMs: 3000,
    })
    expect(classifyAnswer({ provider: 'openai', model: 'm' }, 500, 'boom', {}, 5, o)).toMatchObject(
      { problem: 'http' },
    )
  })
  it('counts a 200 as working only when it is a completion', () => {
    expect(
      classifyAnswer({ provider: 'openai', model: 'm' }, 200, '{"choices":[]}', {}, 1200, o),
    ).toEqual({
      state: 'ok',
      ms: 1200,
    })
    expect(
      classifyAnswer({ provider: 'anthropic', model: 'claude-x' }, 200, '{"content":[]}', {}, 1, o)
        .state,
    ).toBe('ok')
    expect(
      classifyAnswer(
        { provider: 'openai', model: 'm' },
        200,
        '<!doctype html><title>Murmuration',
        {},
        1,
        o,
      ),
    ).toMatchObject({ problem: 'not-llm' })
  })
})

describe('probeModel', () => {
  const KEY = 'sk-probe-test'
  let mock: MockLlmServer
  beforeAll(async () => {
    mock = await createMockLlmServer({ keys: [KEY], latencyMs: 0 })
  })
  afterAll(async () => {
    await mock.close()
  })

  it('makes one small call to the role’s endpoint and reports the time', async () => {
    for (const provider of ['anthropic', 'openai', 'openai-compatible'] as const) {
      const before = mock.requests.length
      const result = await probeModel(
        { provider, model: 'm', apiKey: KEY, baseUrl: `${mock.url}/v1/` },
        { page: LOOPBACK_PAGE },
      )
      expect(result.state).toBe('ok')
      expect(mock.requests.length - before).toBe(1)
      const sent = mock.requests.at(-1)!
      expect(sent.path).toBe(provider === 'anthropic' ? '/v1/messages' : '/v1/chat/completions')
      const body = sent.body as Record<string, unknown>
      expect(body.max_tokens ?? body.max_completion_tokens).toBe(PROBE_MAX_OUTPUT_TOKENS)
    }
  })

  it('names a wrong key', async () => {
    const result = await probeModel(
      { provider: 'anthropic', model: 'm', apiKey: 'wrong', baseUrl: `${mock.url}/v1` },
      { page: LOOPBACK_PAGE },
    )
    expect(result).toMatchObject({ state: 'failed', problem: 'auth', status: 401 })
  })

  it('a refused connection with no server behind it is unreachable', async () => {
    const calls: string[] = []
    const refused: typeof fetch = async (input, init) => {
      calls.push(`${init?.mode ?? 'cors'} ${String(input)}`)
      throw new TypeError('Failed to fetch')
    }
    const result = await probeModel(
      { provider: 'openai-compatible', model: 'm', baseUrl: 'http://127.0.0.1:9/v1' },
      { page: LOOPBACK_PAGE, fetch: refused },
    )
    expect(result).toMatchObject({ state: 'failed', problem: 'unreachable' })
    expect(calls).toEqual([
      'cors http://127.0.0.1:9/v1/chat/completions',
      'no-cors http://127.0.0.1:9/v1/models',
    ])
  })

  it('a server that answers only no-cors requests refuses this page by CORS', async () => {
    const corsOnly: typeof fetch = async (_input, init) => {
      if (init?.mode === 'no-cors') return new Response(null, { status: 200 })
      throw new TypeError('Failed to fetch')
    }
    const result = await probeModel(
      { provider: 'openai-compatible', model: 'm', baseUrl: 'http://127.0.0.1:1234/v1' },
      { page: LOOPBACK_PAGE, fetch: corsOnly },
    )
    expect(result).toMatchObject({ problem: 'cors', origin: 'http://127.0.0.1:1234' })
  })

  it('a public page’s failed call to loopback is the LNA block, with no second request', async () => {
    let calls = 0
    const blocked: typeof fetch = async () => {
      calls++
      throw new TypeError('Failed to fetch')
    }
    const result = await probeModel(
      { provider: 'openai-compatible', model: 'm', baseUrl: 'http://localhost:11434/v1' },
      { page: PUBLIC_PAGE, fetch: blocked },
    )
    expect(result).toMatchObject({ problem: 'local-network-blocked' })
    expect(calls).toBe(1)
  })

  it('a slow answer is reported as slow (server up), then as working', async () => {
    const release = mock.hold()
    const slow: boolean[] = []
    const pending = probeModel(
      { provider: 'openai', model: 'm', apiKey: KEY, baseUrl: `${mock.url}/v1` },
      { page: LOOPBACK_PAGE, slowMs: 100, onSlow: (up) => slow.push(up) },
    )
    await expect.poll(() => slow).toEqual([true])
    release()
    expect((await pending).state).toBe('ok')
  })

  it('a side request that comes back after the answer does not report slow', async () => {
    let releaseSide!: () => void
    const sideBack = new Promise<void>((resolve) => (releaseSide = resolve))
    const slow: boolean[] = []
    const fake: typeof fetch = async (input) => {
      if (String(input).endsWith('/models')) {
        await sideBack
        return new Response('{"data":[]}')
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
      return new Response('{"choices":[]}')
    }
    const result = await probeModel(
      { provider: 'openai-compatible', model: 'm', baseUrl: 'http://127.0.0.1:9/v1' },
      { page: LOOPBACK_PAGE, fetch: fake, slowMs: 20, onSlow: (up) => slow.push(up) },
    )
    expect(result.state).toBe('ok')
    releaseSide()
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(slow).toEqual([])
  })

  it('no answer within the limit is a timeout', async () => {
    const release = mock.hold()
    try {
      const result = await probeModel(
        { provider: 'openai', model: 'm', apiKey: KEY, baseUrl: `${mock.url}/v1` },
        { page: LOOPBACK_PAGE, slowMs: 50, timeoutMs: 300 },
      )
      expect(result).toMatchObject({ state: 'failed', problem: 'timeout', serverUp: true })
    } finally {
      release()
    }
  })

  it('the request carries the key the way the provider wants it', () => {
    expect(
      probeRequest({ provider: 'anthropic', model: 'm', apiKey: 'k' }).init.headers,
    ).toMatchObject({
      'x-api-key': 'k',
      'anthropic-dangerous-direct-browser-access': 'true',
    })
    expect(probeRequest({ provider: 'openai', model: 'm', apiKey: 'k' }).url).toBe(
      'https://api.openai.com/v1/chat/completions',
    )
    expect(
      probeRequest({ provider: 'openai-compatible', model: 'm', baseUrl: 'http://h/v1' }).init
        .headers,
    ).not.toHaveProperty('authorization')
  })
})
