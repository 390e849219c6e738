/**
 * The STUN/TURN servers of a headless agent's RTCPeerConnections:
 *
 * - `--turn URL… [--turn-secret S]`: its own, with coturn shared-secret
 *   credentials it makes itself, fresh for each new connection (relay/ice.ts,
 *   the same scheme as `npm start`), so the secret goes nowhere but the HMAC;
 * - `--ice URL`: the /ice.json of some app (ice-config.ts fetches it, and
 *   again at half the credentials' life);
 * - otherwise, without --relay: the /ice.json of --app, which also named the
 *   relay, as a tab does;
 * - otherwise (--relay alone): none, host candidates only (a LAN).
 */
import { iceFromOptions } from '../../relay/ice'
import { ICE_CONFIG_PATH, iceServersSource } from '../net/ice-config'
import type { RtcConfigurationSource } from '../net/types'
import type { AgentOptions } from './agent-options'

export function agentRtcConfiguration(
  options: Pick<AgentOptions, 'ice' | 'relays' | 'app'>,
  log: (message: string) => void,
): RtcConfigurationSource | undefined {
  const { ice } = options
  if (ice?.kind === 'servers') {
    // an empty env: the secret, if any, was read (flag or variable) while parsing
    const make = iceFromOptions(ice.urls, ice.secret, {})
    if (make === undefined) return undefined
    return async () => ({ iceServers: make().iceServers })
  }
  const url =
    ice?.kind === 'url'
      ? ice.url.href
      : options.relays.length === 0
        ? new URL(ICE_CONFIG_PATH, options.app).href
        : undefined
  return url === undefined ? undefined : iceServersSource({ url, log })
}

/** The start line's words for it: "turn:h:3478 (own credentials)", "from URL", or "". */
export function agentIceLine(options: Pick<AgentOptions, 'ice'>): string {
  const { ice } = options
  if (ice === undefined) return ''
  if (ice.kind === 'url') return `ICE servers from ${ice.url.href}`
  return `ICE servers ${ice.urls.join(' ')}${ice.secret === undefined ? '' : ' (TURN credentials made here, 2 h each)'}`
}
