import { describe, expect, it } from 'vitest'
import { isSecureWsAddr, pickRelayAddrs } from './relay-info'

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
