/**
 * What a tab says when links fail: this tab cannot link directly (and why,
 * and whether the relay carries its traffic instead), it has no link yet,
 * or a peer of the room is out of reach (and why). Each notice names the
 * real cause and what the person reading it can do about it: the person who
 * ran `npm start` (a page on this computer's loopback address) is told other
 * things than a friend who opened a link.
 */
import type { ConnectionSummary, DirectCause, Relaying } from '../../runtime/types'
import { shortPeer } from './format'
import { cutOff } from './links'

export interface LinkNotice {
  /** 'alert': no work can reach this tab (or a peer); 'info': it works, another way */
  tone: 'alert' | 'info'
  /** the accessible name of the notice */
  label: string
  title: string
  body: string
  advice: string
}

/** Why a browser cannot link directly, as the end of "…cannot make direct links: ". */
export const CAUSE_WORDS: Record<DirectCause, string> = {
  'no-webrtc':
    'it has no WebRTC (missing, or turned off by a setting, an extension or a company policy)',
  'ice-failed': 'every attempt to link directly to the peers of this room failed',
}

/** Why a peer cannot link directly, about another peer. */
const PEER_CAUSE_WORDS: Record<DirectCause, string> = {
  'no-webrtc': 'its browser has no WebRTC',
  'ice-failed': 'every direct attempt to link to it failed',
}

/** What the relay does about it, in words. */
export const RELAYING_WORDS: Record<Relaying, string> = {
  granted: 'the relay carries its traffic instead',
  off: 'the relay does not carry it: whoever runs the app turned that off',
  full: "the relay's limits for such tabs are reached (too many at once, or the hour's budget spent)",
}

/** What to do about the cause, for the one who reads it. */
function causeAdvice(cause: DirectCause, host: boolean): string {
  if (cause === 'no-webrtc')
    return 'For direct links, turn WebRTC on again (Firefox: media.peerconnection.enabled in about:config; or the extension or policy that blocks it), or open this link in another browser.'
  return host
    ? 'Browsers link the tabs of one computer over its network, never over loopback alone: connect it to a network (any Wi-Fi, even without internet), and check that no firewall drops UDP on it.'
    : 'A firewall or router between you and the others drops direct (UDP) links: ask whoever sent you this link to add a TURN server (the Murmuration guide, “Invite a friend anywhere”), or join from their network.'
}

/** What to do about a refusal, for the one who reads it. */
function refusalAdvice(relaying: Relaying | undefined, host: boolean): string {
  if (relaying === 'off')
    return host
      ? 'To let such tabs take part, start the app without --relay-fallback off.'
      : 'Ask whoever runs the app to turn relaying on (--relay-fallback on).'
  if (relaying === 'full')
    return host
      ? 'Wait, or raise the limits (--fallback-peers, --fallback-peer-mib-per-hour, --fallback-total-mib-per-hour).'
      : 'Try again later, or ask whoever runs the app to raise its limits.'
  return 'The relay did not answer the request: it may be an older version that relays nothing.'
}

function peers(n: number): string {
  return n === 1 ? 'One peer is' : `${n} peers are`
}

/**
 * The notices a tab shows for its links now. `host`: the page is on this
 * computer's loopback address (the person who ran `npm start`). A notice
 * that this tab has no link at all waits CUT_OFF_GRACE_MS (the caller
 * decides with `settled`); the others are shown at once.
 */
export function linkNotices(
  summary: ConnectionSummary,
  host: boolean,
  settled: boolean,
): LinkNotice[] {
  const notices: LinkNotice[] = []
  const self = summary.cannotLink
  if (self !== undefined) {
    const why = `This browser cannot make direct links: ${CAUSE_WORDS[self.cause]}.`
    if (self.relaying === 'granted') {
      notices.push({
        tone: 'info',
        label: 'Linked through the relay',
        title: why,
        body: `It takes part through the relay instead (${summary.viaRelay} ${summary.viaRelay === 1 ? 'link' : 'links'} through it now), within the limits of whoever runs the app.`,
        advice: causeAdvice(self.cause, host),
      })
    } else if (self.relaying !== undefined || settled) {
      const refused =
        self.relaying === undefined ? '' : ` ${capital(RELAYING_WORDS[self.relaying])}.`
      notices.push({
        tone: 'alert',
        label: 'No link to the room',
        title: why,
        body: `${peers(summary.known)} in this room, out of this tab's reach.${refused} No work can reach this tab.`,
        advice: `${refusalAdvice(self.relaying, host)} ${causeAdvice(self.cause, host)}`,
      })
    }
  } else if (settled && cutOff(summary)) {
    notices.push({
      tone: 'alert',
      label: 'No direct link',
      title: 'This tab cannot link to anyone directly yet.',
      body: `${peers(summary.known)} in this room, but every direct (WebRTC) attempt so far failed: no work can reach this tab. If none works within a minute, it asks the relay to carry its traffic.`,
      advice: causeAdvice('ice-failed', host),
    })
  }
  if (summary.unreachable.length > 0) {
    const lines = summary.unreachable.map(
      (p) =>
        `${shortPeer(p.peerId)}: ${PEER_CAUSE_WORDS[p.cause]}, and ${RELAYING_WORDS[p.relaying].replace('the relay carries its traffic instead', 'the relay carries it')}`,
    )
    notices.push({
      tone: 'alert',
      label: 'Peers out of reach',
      title: `${peers(summary.unreachable.length)} in this room but out of reach: no work goes to or from ${summary.unreachable.length === 1 ? 'it' : 'them'}.`,
      body: `${lines.join('; ')}.`,
      advice: refusalAdvice(summary.unreachable[0]!.relaying, host),
    })
  }
  return notices
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}
