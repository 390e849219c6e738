import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeLocalServer, type FakeLocalServer } from '../../test/mock-llm/local-server'
import { discoverLocalServers, isOwnServer, parseModelList } from './local-servers'

const LOOPBACK = { hostname: '127.0.0.1', port: '8080', protocol: 'http:' }

describe('parseModelList', () => {
  it('reads Ollama’s tags and OpenAI’s lists, and nothing else', () => {
    expect(
      parseModelList('ollama', { models: [{ name: 'llama3.2:latest' }, { name: 7 }] }),
    ).toEqual(['llama3.2:latest'])
    expect(
      parseModelList('lmstudio', {
        data: [{ id: 'qwen2.5-7b-instruct' }, { id: 'text-embedding-nomic-embed-text-v1.5' }],
      }),
    ).toEqual(['qwen2.5-7b-instruct'])
    expect(parseModelList('llamacpp', { data: [] })).toEqual([])
    expect(parseModelList('llamacpp', '<!doctype html>')).toBeNull()
    expect(parseModelList('ollama', { data: [{ id: 'x' }] })).toBeNull()
  })

  it('knows the page’s own server on loopback', () => {
    expect(isOwnServer(LOOPBACK, 8080)).toBe(true)
    expect(isOwnServer({ ...LOOPBACK, hostname: 'localhost' }, 8080)).toBe(true)
    expect(isOwnServer(LOOPBACK, 1234)).toBe(false)
    expect(isOwnServer({ hostname: '10.0.0.2', port: '8080', protocol: 'http:' }, 8080)).toBe(false)
  })
})

describe('discoverLocalServers', () => {
  let ollama: FakeLocalServer
  let lmstudio: FakeLocalServer
  beforeAll(async () => {
    ollama = await startFakeLocalServer({ kind: 'ollama', models: ['llama3.2:latest', 'qwen3:8b'] })
    lmstudio = await startFakeLocalServer({ kind: 'lmstudio', models: ['qwen2.5-7b-instruct'] })
  })
  afterAll(async () => {
    await Promise.all([ollama.close(), lmstudio.close()])
  })

  it('finds the servers that answer and offers their models', async () => {
    const found = await discoverLocalServers({
      page: { hostname: '127.0.0.1', port: '5173', protocol: 'http:' },
      // llama.cpp's port: nobody there
      ports: { ollama: ollama.port, lmstudio: lmstudio.port, llamacpp: 9 },
    })
    expect(found).toEqual([
      {
        kind: 'ollama',
        label: 'Ollama',
        baseUrl: `${ollama.url}/v1`,
        models: ['llama3.2:latest', 'qwen3:8b'],
      },
      {
        kind: 'lmstudio',
        label: 'LM Studio',
        baseUrl: `${lmstudio.url}/v1`,
        models: ['qwen2.5-7b-instruct'],
      },
    ])
    expect(ollama.requests).toContain('GET /api/tags')
  })

  it('does not take the page’s own server for llama.cpp', async () => {
    const asked: string[] = []
    const found = await discoverLocalServers({
      page: { hostname: 'localhost', port: String(lmstudio.port), protocol: 'http:' },
      ports: { ollama: 9, lmstudio: 9, llamacpp: lmstudio.port },
      fetch: (input, init) => {
        asked.push(String(input))
        return fetch(input, init)
      },
    })
    expect(found).toEqual([])
    expect(asked.some((u) => u.includes(`:${lmstudio.port}/`))).toBe(false)
  })

  it('asks nothing from a page that is not on loopback', async () => {
    let asked = 0
    const found = await discoverLocalServers({
      page: { hostname: '10.77.0.1', port: '8080', protocol: 'http:' },
      ports: { ollama: ollama.port },
      fetch: () => {
        asked++
        return Promise.reject(new TypeError('Failed to fetch'))
      },
    })
    expect(found).toEqual([])
    expect(asked).toBe(0)
  })
})
