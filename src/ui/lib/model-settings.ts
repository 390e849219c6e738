/**
 * Which model each role uses, and the user's API keys. Everything here lives
 * in this browser's localStorage only: the runtime gets the key through
 * setModel() and sends it to the chosen provider, never to peers or the relay.
 *
 * Keys are stored per provider (one Anthropic key serves every role); the
 * provider, model and base URL are stored per role.
 */
import type { ModelConfig, Role } from '../../runtime/types'
import { DEFAULT_LOCAL_PORTS, type LocalServerKind } from '../../llm/local-servers'

/*
 * Mirrors of OFFLINE_MODEL (src/llm/offline.ts) and
 * DEFAULT_OPENAI_COMPATIBLE_BASE_URL (src/llm/ai-sdk-provider.ts), copied
 * rather than imported: those modules pull the offline model and the AI SDK
 * into the page, while the LLM layer belongs in the role's worker.
 */
const OFFLINE_MODEL = 'offline-v1'
export const DEFAULT_BASE_URL = 'http://localhost:11434/v1'

export type Provider = ModelConfig['provider']

export interface ProviderInfo {
  id: Provider
  label: string
  /** suggested model names; the first is the default */
  models: string[]
  needsKey: boolean
  /** where the key is sent, in words */
  destination: string
  /** the base URL field: required, optional or not shown */
  baseUrl: 'required' | 'optional' | 'none'
}

export const PROVIDERS: readonly ProviderInfo[] = [
  {
    id: 'offline',
    label: 'Built-in offline model (not a real LLM)',
    models: [OFFLINE_MODEL],
    needsKey: false,
    destination: 'nowhere: it runs inside this tab',
    baseUrl: 'none',
  },
  {
    id: 'anthropic',
    label: 'Anthropic',
    models: ['claude-haiku-4-5', 'claude-sonnet-4-5', 'claude-opus-4-5'],
    needsKey: true,
    destination: 'Anthropic (api.anthropic.com)',
    baseUrl: 'optional',
  },
  {
    id: 'openai',
    label: 'OpenAI',
    models: ['gpt-4.1-mini', 'gpt-5-mini', 'gpt-4o-mini', 'gpt-5'],
    needsKey: true,
    destination: 'OpenAI (api.openai.com)',
    baseUrl: 'optional',
  },
  {
    id: 'openai-compatible',
    label: 'OpenAI-compatible server (Ollama, LM Studio, llama.cpp…)',
    models: ['llama3.2', 'qwen2.5', 'mistral'],
    needsKey: false,
    destination: 'the server at the base URL',
    baseUrl: 'required',
  },
]

export function providerInfo(id: Provider): ProviderInfo {
  return PROVIDERS.find((p) => p.id === id) ?? PROVIDERS[0]!
}

export const OFFLINE_CONFIG: ModelConfig = { provider: 'offline', model: OFFLINE_MODEL }

const PREFIX = 'murmuration:'
const modelKey = (role: Role) => `${PREFIX}model:${role}`
const apiKeyKey = (provider: Provider) => `${PREFIX}key:${provider}`

/** localStorage can throw (privacy modes, quota): settings are then just not remembered. */
function read(key: string): string | null {
  try {
    return localStorage.getItem(key)
  } catch {
    return null
  }
}

function write(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key)
    else localStorage.setItem(key, value)
  } catch {
    // not remembered; the session still uses the value
  }
}

/** The saved choice for a role, without its key. */
export function loadModelChoice(role: Role): ModelConfig {
  const raw = read(modelKey(role))
  if (raw === null) return OFFLINE_CONFIG
  try {
    const parsed = JSON.parse(raw) as Partial<ModelConfig>
    const info = PROVIDERS.find((p) => p.id === parsed.provider)
    if (!info || typeof parsed.model !== 'string' || !parsed.model) return OFFLINE_CONFIG
    const config: ModelConfig = { provider: info.id, model: parsed.model }
    if (typeof parsed.baseUrl === 'string' && parsed.baseUrl) config.baseUrl = parsed.baseUrl
    return config
  } catch {
    return OFFLINE_CONFIG
  }
}

export function saveModelChoice(role: Role, config: ModelConfig): void {
  const { apiKey: _key, ...withoutKey } = config
  write(modelKey(role), JSON.stringify(withoutKey))
}

export function loadApiKey(provider: Provider): string {
  return read(apiKeyKey(provider)) ?? ''
}

export function saveApiKey(provider: Provider, key: string): void {
  write(apiKeyKey(provider), key === '' ? null : key)
}

export function forgetApiKey(provider: Provider): void {
  write(apiKeyKey(provider), null)
}

/** The full config a runtime needs: the saved choice plus its provider's key, if any. */
export function loadModelConfig(role: Role): ModelConfig {
  const choice = loadModelChoice(role)
  if (choice.provider === 'offline') return choice
  const key = loadApiKey(choice.provider)
  return key ? { ...choice, apiKey: key } : choice
}

/** Why a config cannot be used yet, in words; null when it can. */
export function configProblem(config: ModelConfig): string | null {
  const info = providerInfo(config.provider)
  if (!config.model.trim()) return 'Enter a model name.'
  if (info.baseUrl === 'required' && !config.baseUrl?.trim()) return 'Enter the server’s base URL.'
  if (config.baseUrl?.trim()) {
    try {
      const url = new URL(config.baseUrl)
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme')
    } catch {
      return 'The base URL must start with http:// or https://.'
    }
  }
  if (info.needsKey && !config.apiKey?.trim()) return `Enter your ${info.label} API key.`
  return null
}

/**
 * Test hook: the ports local server discovery asks (src/llm/local-servers.ts),
 * e.g. {"ollama":21434}, so an end-to-end test's fake servers do not collide
 * with real ones. Unset, the servers' default ports are asked.
 */
const LOCAL_PORTS_KEY = `${PREFIX}local-server-ports`

export function loadLocalServerPorts(): Partial<Record<LocalServerKind, number>> {
  const raw = read(LOCAL_PORTS_KEY)
  if (raw === null) return {}
  try {
    const parsed = JSON.parse(raw) as Record<string, unknown>
    const ports: Partial<Record<LocalServerKind, number>> = {}
    for (const kind of Object.keys(DEFAULT_LOCAL_PORTS) as LocalServerKind[]) {
      const port = parsed[kind]
      if (typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65_536)
        ports[kind] = port
    }
    return ports
  } catch {
    return {}
  }
}
