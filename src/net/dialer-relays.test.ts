// Dialer with several relays: a dial is signalled through a relay we are connected to.
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { Libp2p } from '@libp2p/interface'
import { multiaddr } from '@multiformats/multiaddr'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DIAL_FALLBACK_AFTER_MS } from './constants'
import { Dialer } from './dialer'
import { silentLogger } from './log'
import type { RelayInfo } from './relay-client'

const gen = async () => peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()
const relayAt = (peerId: string, port: number): RelayInfo => ({
  peerId,
  addr: multiaddr(`/ip4/127.0.0.1/tcp/${port}/ws/p2p/${peerId}`),
})

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

/**
 * Both relays list the peer while both are up; then `upRelays` are the ones
 * still up when we dial it (we sort after it: we dial once the fallback
 * time has passed without its dial reaching us).
 */
async function setup(upRelays: (relays: RelayInfo[]) => RelayInfo[]) {
  const [peer, self] = [await gen(), await gen()].sort()
  const relays = [relayAt(await gen(), 4001), relayAt(await gen(), 4002)]
  let up = relays
  const dialed: string[] = []
  const libp2p = {
    peerId: { toString: () => self },
    addEventListener: () => {},
    removeEventListener: () => {},
    getConnections: () =>
      up.map((r) => ({
        remotePeer: { toString: () => r.peerId },
        status: 'open',
        limits: null,
        timeline: { open: 0 },
      })),
    dial: (target: { toString: () => string }) => {
      dialed.push(target.toString())
      return new Promise(() => {})
    },
    peerStore: { get: () => Promise.reject(new Error('unknown')) },
  }
  const dialer = new Dialer({
    libp2p: libp2p as unknown as Libp2p,
    logger: silentLogger,
    signal: new AbortController().signal,
    isBanned: () => false,
    onChange: () => {},
  })
  for (const relay of relays) dialer.setRoomPeers(relay, [self!, peer!])
  expect(dialed).toEqual([])
  up = upRelays(relays)
  vi.advanceTimersByTime(DIAL_FALLBACK_AFTER_MS + 1)
  dialer.tick()
  return { relays, dialed, peer: peer! }
}

describe('Dialer: several relays', () => {
  it('signals through a relay that is up, not the first one listed when it went down', async () => {
    const { relays, dialed, peer } = await setup((relays) => relays.slice(1))
    expect(dialed).toEqual([`${relays[1]!.addr.toString()}/p2p-circuit/webrtc/p2p/${peer}`])
  })

  it('signals through the first relay that listed the peer while all are up', async () => {
    const { relays, dialed, peer } = await setup((relays) => relays)
    expect(dialed).toEqual([`${relays[0]!.addr.toString()}/p2p-circuit/webrtc/p2p/${peer}`])
  })

  it('still tries a listed relay when none is up (it may be back by then)', async () => {
    const { relays, dialed } = await setup(() => [])
    expect(dialed).toHaveLength(1)
    expect(dialed[0]!.startsWith(relays[0]!.addr.toString())).toBe(true)
  })
})
