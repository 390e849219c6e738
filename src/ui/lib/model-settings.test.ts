import { beforeEach, describe, expect, it } from 'vitest'
import {
  configProblem,
  forgetApiKey,
  loadApiKey,
  loadLocalServerPorts,
  loadModelConfig,
  OFFLINE_CONFIG,
  saveApiKey,
  saveModelChoice,
} from './model-settings'

class MemoryStorage {
  private readonly items = new Map<string, string>()
  getItem(key: string) {
    return this.items.get(key) ?? null
  }
  setItem(key: string, value: string) {
    this.items.set(key, value)
  }
  removeItem(key: string) {
    this.items.delete(key)
  }
  dump() {
    return JSON.stringify([...this.items])
  }
}

let storage: MemoryStorage

beforeEach(() => {
  storage = new MemoryStorage()
  Object.defineProperty(globalThis, 'localStorage', { value: storage, configurable: true })
})

describe('model settings in this browser', () => {
  it('start with the offline model', () => {
    expect(loadModelConfig('scorer')).toEqual(OFFLINE_CONFIG)
  })

  it('remember the choice per role and the key per provider, never the key with the choice', () => {
    saveModelChoice('executor', {
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      apiKey: 'sk-secret',
    })
    saveApiKey('anthropic', 'sk-secret')
    expect(storage.getItem('murmuration:model:executor')).not.toContain('sk-secret')
    expect(loadModelConfig('executor')).toEqual({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      apiKey: 'sk-secret',
    })
    expect(loadModelConfig('scorer')).toEqual(OFFLINE_CONFIG)
  })

  it('forget a key for good', () => {
    saveApiKey('openai', 'sk-gone')
    forgetApiKey('openai')
    expect(loadApiKey('openai')).toBe('')
    expect(storage.dump()).not.toContain('sk-gone')
  })

  it('ignore a corrupt saved choice', () => {
    storage.setItem('murmuration:model:decomposer', '{not json')
    expect(loadModelConfig('decomposer')).toEqual(OFFLINE_CONFIG)
    storage.setItem('murmuration:model:decomposer', '{"provider":"evil","model":"x"}')
    expect(loadModelConfig('decomposer')).toEqual(OFFLINE_CONFIG)
  })
})

describe('what is missing before a model can be used', () => {
  it('accepts the offline model as it is', () => {
    expect(configProblem(OFFLINE_CONFIG)).toBeNull()
  })

  it('asks for a key for hosted providers', () => {
    expect(configProblem({ provider: 'anthropic', model: 'claude-haiku-4-5' })).toMatch(/API key/)
    expect(configProblem({ provider: 'openai', model: 'gpt-4.1-mini', apiKey: 'k' })).toBeNull()
  })

  it('asks for a usable base URL for an OpenAI-compatible server, but no key', () => {
    expect(configProblem({ provider: 'openai-compatible', model: 'llama3.2' })).toMatch(/base URL/)
    expect(
      configProblem({ provider: 'openai-compatible', model: 'llama3.2', baseUrl: 'file:///etc' }),
    ).toMatch(/http/)
    expect(
      configProblem({
        provider: 'openai-compatible',
        model: 'llama3.2',
        baseUrl: 'http://localhost:11434/v1',
      }),
    ).toBeNull()
  })

  it('asks for a model name', () => {
    expect(configProblem({ provider: 'openai', model: ' ', apiKey: 'k' })).toMatch(/model/)
  })
})

describe('loadLocalServerPorts', () => {
  it('reads the test hook’s ports and drops anything else', () => {
    expect(loadLocalServerPorts()).toEqual({})
    localStorage.setItem(
      'murmuration:local-server-ports',
      JSON.stringify({ ollama: 21434, lmstudio: 'x', llamacpp: 70000, other: 5 }),
    )
    expect(loadLocalServerPorts()).toEqual({ ollama: 21434 })
    localStorage.setItem('murmuration:local-server-ports', '{')
    expect(loadLocalServerPorts()).toEqual({})
  })
})
