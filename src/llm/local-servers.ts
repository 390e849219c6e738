/**
 * Finding the local LLM servers of this computer without configuration:
 * Ollama, LM Studio and a llama.cpp server on their default ports, each
 * asked for its model list once (one GET each, short timeouts, nothing
 * logged by us: a port with nobody behind it costs one line the browser
 * itself prints).
 *
 * Only a page on this machine's loopback asks: from a plain-http page on a
 * LAN address Chromium refuses every such request (Local Network Access,
 * address-space.ts), and a friend's page must not fire refused requests at
 * their machine for nothing.
 */
import { addressSpaceOf } from './address-space'

export type LocalServerKind = 'ollama' | 'lmstudio' | 'llamacpp'

/** The servers' own default ports. llama.cpp's 8080 is also this app's default: see discover. */
export const DEFAULT_LOCAL_PORTS: Readonly<Record<LocalServerKind, number>> = {
  ollama: 11434,
  lmstudio: 1234,
  llamacpp: 8080,
}

/** A server on loopback answers a model list in milliseconds; a port that holds on is not one. */
export const DISCOVERY_TIMEOUT_MS = 1_500

interface KindInfo {
  label: string
  /** the model list: Ollama's own API names every pulled model, the others speak OpenAI's */
  listPath: string
  /**
   * Ask again in no-cors mode when the list is refused: LM Studio answers
   * without CORS headers until its "Enable CORS" is on. Not for port 8080,
   * where any web server would answer a no-cors request.
   */
  corsHint: boolean
}

export const LOCAL_SERVERS: Readonly<Record<LocalServerKind, KindInfo>> = {
  ollama: { label: 'Ollama', listPath: '/api/tags', corsHint: false },
  lmstudio: { label: 'LM Studio', listPath: '/v1/models', corsHint: true },
  llamacpp: { label: 'llama.cpp server', listPath: '/v1/models', corsHint: false },
}

export type FoundServer = {
  kind: LocalServerKind
  label: string
  /** the OpenAI-compatible base URL the role uses */
  baseUrl: string
} & ({ models: string[] } | { corsBlocked: true })

/** The model names in a server's list answer; null when it is not such an answer. */
export function parseModelList(kind: LocalServerKind, body: unknown): string[] | null {
  if (typeof body !== 'object' || body === null) return null
  const names = (items: unknown, field: string): string[] | null =>
    Array.isArray(items)
      ? items
          .map((m) =>
            typeof m === 'object' && m !== null ? (m as Record<string, unknown>)[field] : null,
          )
          .filter((n): n is string => typeof n === 'string' && n !== '')
      : null
  if (kind === 'ollama') return names((body as { models?: unknown }).models, 'name')
  const ids = names((body as { data?: unknown }).data, 'id')
  // LM Studio lists its embedding models too: they cannot chat
  return ids && ids.filter((id) => !/embed/i.test(id))
}

/** Is `port` on loopback this very page's own server (this app, e.g. on 8080)? */
export function isOwnServer(
  page: { hostname: string; port: string; protocol: string },
  port: number,
): boolean {
  if (addressSpaceOf(page.hostname) !== 'loopback') return false
  const own = page.port === '' ? (page.protocol === 'https:' ? 443 : 80) : Number(page.port)
  return own === port
}

export interface DiscoverOptions {
  page: { hostname: string; port: string; protocol: string }
  ports?: Partial<Record<LocalServerKind, number>>
  fetch?: typeof fetch
  timeoutMs?: number
}

async function ask(
  kind: LocalServerKind,
  port: number,
  doFetch: typeof fetch,
  timeoutMs: number,
): Promise<FoundServer | null> {
  const info = LOCAL_SERVERS[kind]
  const origin = `http://127.0.0.1:${port}`
  const found = { kind, label: info.label, baseUrl: `${origin}/v1` }
  const url = `${origin}${info.listPath}`
  try {
    const res = await doFetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      cache: 'no-store',
      credentials: 'omit',
    })
    if (!res.ok) return null
    const models = parseModelList(kind, await res.json().catch(() => null))
    return models === null ? null : { ...found, models }
  } catch {
    if (!info.corsHint) return null
    // an opaque answer: something listens there but does not let this page read it
    const opaque = await doFetch(url, {
      mode: 'no-cors',
      signal: AbortSignal.timeout(timeoutMs),
      credentials: 'omit',
    }).then(
      () => true,
      () => false,
    )
    return opaque ? { ...found, corsBlocked: true } : null
  }
}

/** The local servers that answered, in the order Ollama, LM Studio, llama.cpp. */
export async function discoverLocalServers(options: DiscoverOptions): Promise<FoundServer[]> {
  if (addressSpaceOf(options.page.hostname) !== 'loopback') return []
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis)
  const ports = { ...DEFAULT_LOCAL_PORTS, ...options.ports }
  const kinds = Object.keys(LOCAL_SERVERS) as LocalServerKind[]
  const answers = await Promise.all(
    kinds.map((kind) =>
      // our own app on llama.cpp's port: its answer would be ours, not a model server's
      isOwnServer(options.page, ports[kind])
        ? null
        : ask(kind, ports[kind], doFetch, options.timeoutMs ?? DISCOVERY_TIMEOUT_MS),
    ),
  )
  return answers.filter((a): a is FoundServer => a !== null)
}
