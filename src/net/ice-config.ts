/**
 * The STUN/TURN servers a peer's RTCPeerConnections use, as served by
 * `npm start` (or the relay) at GET /ice.json (relay/ice.ts makes it).
 *
 * TURN credentials there are short-lived: `iceServersSource` keeps a copy
 * and fetches a new one once half of its life is gone, so every new link
 * starts with a credential that still has a while to go. Links already up
 * keep theirs. No file, or a malformed one, means no ICE servers (host
 * candidates only, which is all a LAN needs): a log line, never an error.
 */
import { errMsg } from './log'
import type { RtcConfigurationSource } from './types'

/** The body of GET /ice.json. */
export interface IceConfig {
  iceServers: Array<{ urls: string[]; username?: string; credential?: string }>
  /** unix ms at which the TURN credentials expire; null when there are none */
  expiresAt: number | null
}

export const NO_ICE_SERVERS: IceConfig = { iceServers: [], expiresAt: null }

/** Where the app's origin serves it. */
export const ICE_CONFIG_PATH = '/ice.json'

/** How long to wait for /ice.json: the same server just served the page. */
export const ICE_CONFIG_TIMEOUT_MS = 5_000

/**
 * A fetch that failed is tried again no sooner than this: a new link then
 * goes without TURN for a while rather than waiting on a server that is down.
 */
export const ICE_CONFIG_RETRY_MS = 30_000

/** The checked body, or undefined for anything else. */
export function parseIceConfig(body: unknown): IceConfig | undefined {
  const o = body as Partial<IceConfig> | null
  if (typeof o !== 'object' || o === null || !Array.isArray(o.iceServers)) return undefined
  const expiresAt = o.expiresAt ?? null
  if (expiresAt !== null && typeof expiresAt !== 'number') return undefined
  const servers: IceConfig['iceServers'] = []
  for (const s of o.iceServers as unknown[]) {
    const server = s as Record<string, unknown> | null
    const urls = server?.urls
    if (
      !Array.isArray(urls) ||
      !urls.every((u) => typeof u === 'string' && /^(stun|turn)s?:/.test(u))
    )
      return undefined
    const { username, credential } = server as { username?: unknown; credential?: unknown }
    if (username !== undefined && typeof username !== 'string') return undefined
    if (credential !== undefined && typeof credential !== 'string') return undefined
    servers.push({
      urls: urls as string[],
      ...(typeof username === 'string' ? { username } : {}),
      ...(typeof credential === 'string' ? { credential } : {}),
    })
  }
  return { iceServers: servers, expiresAt }
}

/** When a config fetched at `fetchedAt` should be fetched again: at half of its remaining life. */
export function refreshAt(config: IceConfig, fetchedAt: number): number {
  if (config.expiresAt === null) return Infinity
  return fetchedAt + Math.max(0, config.expiresAt - fetchedAt) / 2
}

export interface IceServersSourceInit {
  /** absolute or page-relative URL of /ice.json */
  url: string
  fetch?: typeof fetch
  now?: () => number
  log?: (message: string) => void
}

/**
 * A function for @libp2p/webrtc's `rtcConfiguration` option: called for
 * every new RTCPeerConnection, it answers from its copy and fetches a new
 * one when due (concurrent calls share one fetch).
 */
export function iceServersSource(init: IceServersSourceInit): () => Promise<RTCConfiguration> {
  const get = init.fetch ?? fetch
  const now = init.now ?? Date.now
  let current: { config: IceConfig; due: number } | undefined
  let pending: Promise<IceConfig> | undefined

  const load = async (): Promise<IceConfig> => {
    const at = now()
    try {
      const res = await get(init.url, {
        cache: 'no-store',
        signal: AbortSignal.timeout(ICE_CONFIG_TIMEOUT_MS),
      })
      if (res.status === 404) {
        current = { config: NO_ICE_SERVERS, due: Infinity }
        return NO_ICE_SERVERS
      }
      if (!res.ok) throw new Error(`HTTP ${res.status}`)
      const config = parseIceConfig(await res.json())
      if (config === undefined) throw new Error('malformed')
      current = { config, due: refreshAt(config, at) }
      return config
    } catch (err) {
      init.log?.(`no ICE servers from ${init.url} for now: ${errMsg(err)}`)
      // keep an older copy while it has not expired; retry later either way
      const keep =
        current !== undefined && (current.config.expiresAt ?? Infinity) > at
          ? current.config
          : NO_ICE_SERVERS
      current = { config: keep, due: at + ICE_CONFIG_RETRY_MS }
      return keep
    }
  }

  return async () => {
    if (current === undefined || now() >= current.due) {
      pending ??= load().finally(() => (pending = undefined))
      await pending
    }
    return { iceServers: current!.config.iceServers }
  }
}

/** The configuration from `source`, over `defaults`, for one new RTCPeerConnection. */
export function rtcConfigurationWith<T extends RTCConfiguration>(
  defaults: T,
  source: RtcConfigurationSource | undefined,
): T | (() => Promise<T>) {
  if (typeof source === 'function') return async () => ({ ...defaults, ...(await source()) })
  return { ...defaults, ...source }
}
