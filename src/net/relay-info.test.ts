import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { fetchRelayInfo, isSecureWsAddr, pickRelayAddrs } from './relay-info'

const ID = '12D3KooWM3D1J9MBUMYYG7o8cHMJvH9qGBtbqbvMjpbS3SXzzLyp'
const info = {
  peerId: ID,
  multiaddrs: [
    `/ip4/10.77.0.1/tcp/8080/tls/ws/p2p/${ID}`,
    `/ip4/10.77.0.1/tcp/9090/ws/p2p/${ID}`,
    `/ip4/127.0.0.1/tcp/9090/ws/p2p/${ID}`,
  ],
}

describe('pickRelayAddrs', () => {
  it('gives an https page only secure WebSocket addresses (no mixed content)', () => {
    expect(pickRelayAddrs(info, '10.77.0.1', 'https:')).toEqual([info.multiaddrs[0]])
  })

  it('gives an http page every address, its own host first', () => {
    expect(pickRelayAddrs(info, '127.0.0.1', 'http:')[0]).toBe(info.multiaddrs[2])
    expect(pickRelayAddrs(info, '10.77.0.1', 'http:').slice(0, 2)).toEqual(
      info.multiaddrs.slice(0, 2),
    )
  })

  it('tells secure WebSocket addresses apart', () => {
    expect(isSecureWsAddr(`/dns/host.local/tcp/443/wss/p2p/${ID}`)).toBe(true)
    expect(isSecureWsAddr(info.multiaddrs[0]!)).toBe(true)
    expect(isSecureWsAddr(info.multiaddrs[1]!)).toBe(false)
  })
})

describe('several relays in /relay.json', () => {
  const OTHER = '12D3KooWQhjarUFZ3AGcpwuxsu6NZ4YBQRNzwBUE9imFXv6V3J6f'
  const other = {
    peerId: OTHER,
    multiaddrs: [
      `/ip4/127.0.0.1/tcp/9190/ws/p2p/${OTHER}`,
      `/dns/relay2.example.org/tcp/443/tls/ws/p2p/${OTHER}`,
    ],
  }

  it('gives every relay named, the origin’s own first, each filtered and ordered alike', () => {
    const both = { ...info, relays: [other] }
    expect(pickRelayAddrs(both, '127.0.0.1', 'http:')).toEqual([
      info.multiaddrs[2],
      info.multiaddrs[0],
      info.multiaddrs[1],
      other.multiaddrs[0],
      other.multiaddrs[1],
    ])
    expect(pickRelayAddrs(both, 'murmuration.example.org', 'https:')).toEqual([
      info.multiaddrs[0],
      other.multiaddrs[1],
    ])
  })

  it('reads the other relays, and refuses a document whose list is malformed', async () => {
    const served = async (body: unknown) => {
      const server = createServer((_, res) => res.end(JSON.stringify(body)))
      await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
      const { port } = server.address() as AddressInfo
      try {
        return await fetchRelayInfo(`http://127.0.0.1:${port}/relay.json`)
      } finally {
        server.close()
      }
    }
    expect(await served({ ...info, relays: [other] })).toEqual({ ...info, relays: [other] })
    // a standalone relay's document names no others
    expect(await served(info)).toEqual(info)
    await expect(served({ ...info, relays: [{ peerId: OTHER }] })).rejects.toThrow(/malformed/)
    await expect(served({ ...info, relays: 'x' })).rejects.toThrow(/malformed/)
  })
})
