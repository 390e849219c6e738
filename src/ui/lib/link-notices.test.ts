import { describe, expect, it } from 'vitest'
import { linkNotices } from './link-notices'
import { summary } from './connection-summary.fixture'

const F = '12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA'

describe('what a tab says when links fail', () => {
  it('no WebRTC, relayed: the real cause, that it works through the relay, and how to link directly', () => {
    const s = summary([{ peerId: 'a', kind: 'via-relay' }], 4, {
      cannotLink: { cause: 'no-webrtc', relaying: 'granted' },
    })
    const [notice, ...rest] = linkNotices(s, false, false)
    expect(rest).toEqual([])
    expect(notice).toMatchObject({ tone: 'info', label: 'Linked through the relay' })
    expect(notice!.title).toBe(
      'This browser cannot make direct links: it has no WebRTC (missing, or turned off by a setting, an extension or a company policy).',
    )
    expect(notice!.body).toContain('through the relay instead (1 link through it now)')
    expect(notice!.advice).toContain('turn WebRTC on again')
    // never the wrong cause and a fix that cannot help
    expect(JSON.stringify(notice)).not.toMatch(/TURN|networks do not let/)
  })

  it('no WebRTC, relaying off: an alert saying so, to the friend and to the host', () => {
    const s = summary([], 4, { cannotLink: { cause: 'no-webrtc', relaying: 'off' } })
    const [friend] = linkNotices(s, false, false)
    expect(friend).toMatchObject({ tone: 'alert', label: 'No link to the room' })
    expect(friend!.body).toBe(
      "4 peers are in this room, out of this tab's reach. The relay does not carry it: whoever runs the app turned that off. No work can reach this tab.",
    )
    expect(friend!.advice).toContain('Ask whoever runs the app to turn relaying on')
    const [host] = linkNotices(s, true, false)
    expect(host!.advice).toContain('start the app without --relay-fallback off')
  })

  it('the host hears which peer is out of reach, and why', () => {
    const s = summary([{ peerId: 'a', kind: 'direct-webrtc', path: 'lan' }], 2, {
      unreachable: [{ peerId: F, cause: 'no-webrtc', relaying: 'full' }],
    })
    const [notice] = linkNotices(s, true, false)
    expect(notice).toMatchObject({ tone: 'alert', label: 'Peers out of reach' })
    expect(notice!.title).toBe(
      'One peer is in this room but out of reach: no work goes to or from it.',
    )
    expect(notice!.body).toMatch(
      /its browser has no WebRTC, and the relay's limits for such tabs are reached/,
    )
    expect(notice!.advice).toContain('--fallback-peers')
  })

  it('tabs of one computer that cannot link are not told to set up TURN (issue 56)', () => {
    const linking = summary([{ peerId: 'a', kind: 'relayed' }], 2)
    // nothing during the grace of a join
    expect(linkNotices(linking, true, false)).toEqual([])
    const [host] = linkNotices(linking, true, true)
    expect(host).toMatchObject({ tone: 'alert', label: 'No direct link' })
    expect(host!.advice).toContain('connect it to a network')
    expect(host!.advice).not.toContain('TURN')
    // a friend on another machine is: a router between them may be the cause
    const [friend] = linkNotices(linking, false, true)
    expect(friend!.advice).toContain('TURN server')
    // concluded (every attempt failed) and relayed: the cause, and that it works
    const relayed = summary([{ peerId: 'a', kind: 'via-relay' }], 2, {
      cannotLink: { cause: 'ice-failed', relaying: 'granted' },
    })
    const [after] = linkNotices(relayed, true, true)
    expect(after!.title).toContain(
      'every attempt to link directly to the peers of this room failed',
    )
    expect(after!.advice).not.toContain('TURN')
  })

  it('no relay answer (an older relay): said once the join is over', () => {
    const s = summary([], 3, { cannotLink: { cause: 'no-webrtc' } })
    expect(linkNotices(s, false, false)).toEqual([])
    const [notice] = linkNotices(s, false, true)
    expect(notice!.advice).toContain('older version')
  })
})
