import { describe, expect, it } from 'vitest'
import {
  ICE_CONFIG_RETRY_MS,
  iceServersSource,
  parseIceConfig,
  refreshAt,
  rtcConfigurationWith,
  type IceConfig,
} from './ice-config'

const TURN: IceConfig = {
  iceServers: [{ urls: ['turn:203.0.113.1:3478'], username: '1:m', credential: 'c' }],
  expiresAt: 2_000_000,
}

function fakeFetch(replies: Array<IceConfig | number | Error>) {
  const calls: string[] = []
  const fetch = (async (url: string) => {
    calls.push(url)
    const next = replies.shift()
    if (next instanceof Error) throw next
    if (typeof next === 'number') return new Response('', { status: next })
    return new Response(JSON.stringify(next))
  }) as unknown as typeof globalThis.fetch
  return { fetch, calls }
}

describe('parseIceConfig', () => {
  it('keeps a well-formed body', () => {
    expect(parseIceConfig(TURN)).toEqual(TURN)
    expect(parseIceConfig({ iceServers: [{ urls: ['stun:h'] }] })).toEqual({
      iceServers: [{ urls: ['stun:h'] }],
      expiresAt: null,
    })
  })

  it('drops anything else', () => {
    for (const bad of [
      null,
      'x',
      {},
      { iceServers: [{ urls: 'stun:h' }] },
      { iceServers: [{ urls: ['http://h'] }] },
      { iceServers: [{ urls: ['turn:h'], username: 1 }] },
      { iceServers: [], expiresAt: 'soon' },
    ]) {
      expect(parseIceConfig(bad)).toBeUndefined()
    }
  })
})

describe('iceServersSource', () => {
  it('fetches once, then again at half of the credential’s remaining life', async () => {
    let now = 1_000_000
    const { fetch, calls } = fakeFetch([TURN, { ...TURN, expiresAt: 4_000_000 }])
    const source = iceServersSource({ url: '/ice.json', fetch, now: () => now })
    expect((await source()).iceServers).toEqual(TURN.iceServers)
    expect(refreshAt(TURN, 1_000_000)).toBe(1_500_000)
    now = 1_499_999
    await source()
    expect(calls).toHaveLength(1)
    now = 1_500_000
    await source()
    expect(calls).toHaveLength(2)
  })

  it('concurrent links share one fetch', async () => {
    const { fetch, calls } = fakeFetch([TURN])
    const source = iceServersSource({ url: '/ice.json', fetch, now: () => 1_000_000 })
    await Promise.all([source(), source(), source()])
    expect(calls).toHaveLength(1)
  })

  it('no /ice.json: no ICE servers, and no more asking', async () => {
    const { fetch, calls } = fakeFetch([404])
    const source = iceServersSource({ url: '/ice.json', fetch, now: () => 0 })
    expect(await source()).toEqual({ iceServers: [] })
    await source()
    expect(calls).toHaveLength(1)
  })

  it('a failed refresh keeps a credential that has not expired, and retries later', async () => {
    let now = 1_000_000
    const logs: string[] = []
    const { fetch, calls } = fakeFetch([TURN, new Error('down'), { ...TURN, expiresAt: 9e9 }])
    const source = iceServersSource({
      url: '/ice.json',
      fetch,
      now: () => now,
      log: (m) => logs.push(m),
    })
    await source()
    now = 1_600_000
    expect((await source()).iceServers).toEqual(TURN.iceServers)
    expect(logs.join()).toContain('down')
    now += ICE_CONFIG_RETRY_MS - 1
    await source()
    expect(calls).toHaveLength(2)
    now += 1
    await source()
    expect(calls).toHaveLength(3)
  })

  it('an expired credential is not used', async () => {
    let now = 1_000_000
    const { fetch } = fakeFetch([TURN, 500])
    const source = iceServersSource({ url: '/ice.json', fetch, now: () => now })
    await source()
    now = 2_000_000
    expect(await source()).toEqual({ iceServers: [] })
  })
})

describe('rtcConfigurationWith', () => {
  it('puts the source over the defaults, fixed or per call', async () => {
    expect(rtcConfigurationWith({ iceServers: [] }, undefined)).toEqual({ iceServers: [] })
    const fn = rtcConfigurationWith({ iceServers: [], bundlePolicy: 'max-bundle' }, async () => ({
      iceServers: [{ urls: 'stun:h' }],
    }))
    expect(typeof fn).toBe('function')
    expect(await (fn as () => Promise<RTCConfiguration>)()).toEqual({
      iceServers: [{ urls: 'stun:h' }],
      bundlePolicy: 'max-bundle',
    })
  })
})
