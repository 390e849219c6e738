/**
 * The ICE servers (STUN and TURN) that `npm start` and `npm run relay` hand
 * to tabs and agents, at GET /ice.json.
 *
 * TURN credentials follow coturn's shared-secret scheme (`use-auth-secret`,
 * `static-auth-secret`; the "TURN REST API" draft): the username is the
 * unix time at which the credential expires, optionally ":" + a label, and
 * the credential is base64(HMAC-SHA1(secret, username)). coturn recomputes
 * the HMAC and refuses an expired username, so the secret never leaves this
 * process and nothing is stored per user. The credentials are made fresh
 * for each request, never put in an invite link, and expire after
 * TURN_CREDENTIAL_TTL_S.
 */
import { createHmac } from 'node:crypto'
import type { IceConfig } from '../src/net/ice-config'

/**
 * How long a TURN credential lives: 2 hours. Whoever can load the app can get
 * credentials, so the lifetime bounds what a copied one is worth once its
 * holder can no longer reach the app (or the secret was changed). coturn
 * checks the expiry on every authenticated request, including the refreshes
 * of an allocation (every ~10 min) and of its permissions (every ~5 min), so
 * a link through TURN lasts at most until its credential expires: tabs fetch
 * new credentials at half-life (src/net/ice-config.ts), so every new link
 * starts with at least an hour to go, and a link that outlives its credential
 * is dialled again with fresh ones.
 */
export const TURN_CREDENTIAL_TTL_S = 2 * 60 * 60

/** The label after the expiry in a TURN username (coturn logs it; it is not a secret). */
export const TURN_USERNAME_LABEL = 'murmuration'

const ICE_SCHEMES = ['stun:', 'stuns:', 'turn:', 'turns:']

/**
 * A STUN/TURN server URL (RFC 7064/7065): stun:host[:port],
 * turn:host[:port][?transport=udp|tcp], turns:…; no credentials in it.
 */
export function isIceUrl(url: string): boolean {
  const scheme = ICE_SCHEMES.find((s) => url.startsWith(s))
  if (scheme === undefined) return false
  return /^(\[[0-9a-fA-F:.]+\]|[a-zA-Z0-9.-]+)(:\d{1,5})?(\?transport=(udp|tcp))?$/.test(
    url.slice(scheme.length),
  )
}

export const TURN_SECRET_ENV = 'MURMURATION_TURN_SECRET'

export interface TurnCredential {
  username: string
  credential: string
  /** unix time (ms) at which coturn starts refusing it */
  expiresAt: number
}

/** A coturn shared-secret credential that expires `ttlS` seconds after `nowMs`. */
export function turnCredential(
  secret: string,
  nowMs: number,
  ttlS = TURN_CREDENTIAL_TTL_S,
  label = TURN_USERNAME_LABEL,
): TurnCredential {
  const expiry = Math.floor(nowMs / 1000) + ttlS
  const username = label === '' ? String(expiry) : `${expiry}:${label}`
  const credential = createHmac('sha1', secret).update(username).digest('base64')
  return { username, credential, expiresAt: expiry * 1000 }
}

export interface IceServersInit {
  /** stun:, turn: and turns: URLs (isIceUrl) */
  urls: string[]
  /** coturn's static-auth-secret: TURN URLs get fresh credentials made with it */
  secret?: string
  ttlS?: number
}

/**
 * The STUN server on a plain TURN server's host and port (coturn answers
 * both there). Browsers learn their NAT's public address only from STUN
 * URLs, never from a TURN allocation, so without it two peers behind
 * friendly NATs would relay through TURN although a direct path exists.
 */
function stunOf(turnUrl: string): string[] {
  if (!turnUrl.startsWith('turn:')) return []
  return [`stun:${turnUrl.slice('turn:'.length).replace(/\?.*$/, '')}`]
}

/**
 * The body of GET /ice.json at `nowMs`: STUN URLs as they are (plus the
 * STUN side of each turn: server), TURN URLs
 * with a fresh credential (when a secret is set). `expiresAt` is when the
 * credential expires, null when there is none.
 */
export function iceConfig(init: IceServersInit, nowMs: number): IceConfig {
  const turn = init.urls.filter((u) => u.startsWith('turn'))
  const stun = [
    ...new Set([...init.urls.filter((u) => u.startsWith('stun')), ...turn.flatMap(stunOf)]),
  ]
  const iceServers: IceConfig['iceServers'] = []
  if (stun.length > 0) iceServers.push({ urls: stun })
  let expiresAt: number | null = null
  if (turn.length > 0) {
    if (init.secret === undefined) {
      iceServers.push({ urls: turn })
    } else {
      const c = turnCredential(init.secret, nowMs, init.ttlS)
      iceServers.push({ urls: turn, username: c.username, credential: c.credential })
      expiresAt = c.expiresAt
    }
  }
  return { iceServers, expiresAt }
}

/**
 * What `--turn URL…` and `--turn-secret S` (or $MURMURATION_TURN_SECRET)
 * serve at /ice.json: a fresh body per request; undefined without --turn.
 */
export function iceFromOptions(
  urls: string[],
  secret: string | undefined,
  env: Record<string, string | undefined> = process.env,
): (() => IceConfig) | undefined {
  if (urls.length === 0) return undefined
  const s = secret ?? env[TURN_SECRET_ENV]
  const init: IceServersInit = { urls, ...(s ? { secret: s } : {}) }
  return () => iceConfig(init, Date.now())
}
