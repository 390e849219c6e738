// Dialer's choice of route (Node peers: announced TCP first, WebRTC otherwise), against a fake libp2p.
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { Libp2p } from '@libp2p/interface'
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr'
import { beforeAll, describe, expect, it } from 'vitest'
import { Dialer } from './dialer'
import { directAddrs } from './direct-addrs'
import { silentLogger } from './log'
import type { RelayInfo } from './relay-client'

let self: string
let other: string
let relay: RelayInfo

beforeAll(async () => {
  const gen = async () => peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()
  const pair = [await gen(), await gen()].sort()
  self = pair[0]!
  other = pair[1]!
  const relayId = await gen()
  relay = { peerId: relayId, addr: multiaddr(`/ip4/127.0.0.1/tcp/4001/ws/p2p/${relayId}`) }
})

interface Known {
  protocols: string[]
  addresses: { multiaddr: Multiaddr }[]
}

/**
 * A fake libp2p: `known` is its peer store; `reachable` says which dial
 * targets (as strings) succeed; a successful relayed dial announces `onRelayed`
 * (identify) after `identifyMs`, or never when it is undefined.
 */
function setup(init: {
  direct: boolean | ((addr: Multiaddr) => boolean)
  /** our own announced addresses (default none, as a tab) */
  own?: string[]
  /** we are the higher PeerId of the pair (default: the lower, whose turn it is) */
  higher?: boolean
  known?: Known
  reachable: (target: string) => boolean
  onRelayed?: Known
  identifyMs?: number
  /** the TCP dial hangs until its signal aborts, then fails as a slow Noise handshake does */
  slowHandshake?: boolean
}) {
  const dialed: string[] = []
  const me = init.higher === true ? other : self
  const them = init.higher === true ? self : other
  let known = init.known
  const listeners = new Set<(event: CustomEvent) => void>()
  const conns: {
    remotePeer: { toString(): string }
    status: string
    limits: object | null
    timeline: { open: number }
    close: () => Promise<void>
  }[] = []
  const identify = (listenAddrs: Multiaddr[]): void => {
    for (const fn of listeners)
      fn(
        new CustomEvent('peer:identify', {
          detail: { peerId: { toString: () => them }, listenAddrs },
        }),
      )
  }
  const libp2p = {
    peerId: { toString: () => me },
    getMultiaddrs: () => (init.own ?? []).map((a) => multiaddr(a)),
    getConnections: () => [...conns],
    peerStore: {
      get: async () => {
        if (known === undefined) throw new Error('not found')
        return known
      },
    },
    addEventListener: (_: string, fn: (event: CustomEvent) => void) => listeners.add(fn),
    removeEventListener: (_: string, fn: (event: CustomEvent) => void) => listeners.delete(fn),
    dial: async (target: Multiaddr | Multiaddr[], options: { signal: AbortSignal }) => {
      const text = (Array.isArray(target) ? target : [target]).map(String).join(' ')
      dialed.push(text)
      if (init.slowHandshake === true && text.includes('/tcp/40123')) {
        await new Promise((resolve) => options.signal.addEventListener('abort', resolve))
        throw Object.assign(new Error(String(options.signal.reason)), {
          name: 'EncryptionFailedError',
        })
      }
      if (!init.reachable(text)) throw new Error(`unreachable: ${text}`)
      const relayed = text.includes('/p2p-circuit/p2p/')
      conns.push({
        remotePeer: { toString: () => them },
        status: 'open',
        limits: relayed ? {} : null,
        timeline: { open: Date.now() },
        close: async () => {},
      })
      if (relayed && init.onRelayed !== undefined) {
        setTimeout(() => {
          known = init.onRelayed
          identify(init.onRelayed!.addresses.map((a) => a.multiaddr))
        }, init.identifyMs ?? 5)
      }
      return { remoteAddr: Array.isArray(target) ? target[0]! : target }
    },
  }
  let changed = 0
  const dialer = new Dialer({
    libp2p: libp2p as unknown as Libp2p,
    logger: silentLogger,
    signal: new AbortController().signal,
    isBanned: () => false,
    onChange: () => changed++,
    ...(init.direct === false ? {} : { direct: init.direct === true ? () => true : init.direct }),
    fallbackAfterMs: init.higher === true ? 60_000 : 0,
    tabDialWaitMs: 300,
    identifyWaitMs: 200,
    dialTimeoutMs: 100,
  })
  const settled = async (dials: number) => {
    const end = Date.now() + 2_000
    while (changed < dials && Date.now() < end) await new Promise((r) => setTimeout(r, 5))
  }
  /** the peer's identify arrives (as after a relayed link it opened to us) */
  const identified = (addrs: Multiaddr[]): void => {
    known = { protocols: ['/meshsub/1.1.0'], addresses: addrs.map((multiaddr) => ({ multiaddr })) }
    identify(addrs)
  }
  return { dialer, dialed, settled, identified, them }
}

const tcp = () => multiaddr('/ip4/127.0.0.1/tcp/40123')
const tabAddrs = () => [
  { multiaddr: multiaddr(`${relay.addr.toString()}/p2p-circuit/webrtc/p2p/${other}`) },
]
const webrtcTarget = () => `${relay.addr.toString()}/p2p-circuit/webrtc/p2p/${other}`
const relayedTarget = () => `${relay.addr.toString()}/p2p-circuit/p2p/${other}`
const tcpTarget = () => `${tcp().toString()}/p2p/${other}`

describe('Dialer: which route', () => {
  it('a tab (direct off) dials WebRTC through the relay, without asking the peer store', async () => {
    const { dialer, dialed, settled } = setup({ direct: false, reachable: () => true })
    dialer.setRoomPeers(relay, [other])
    await settled(1)
    expect(dialed).toEqual([webrtcTarget()])
  })

  it('a Node peer dials the TCP address an identified peer announced', async () => {
    const known = { protocols: ['/meshsub/1.1.0'], addresses: [{ multiaddr: tcp() }] }
    const { dialer, dialed, settled } = setup({ direct: true, known, reachable: () => true })
    dialer.setRoomPeers(relay, [other])
    await settled(1)
    expect(dialed).toEqual([tcpTarget()])
  })

  it('introduces an unknown peer over the relay, then dials the TCP address identify announced', async () => {
    const { dialer, dialed, settled } = setup({
      direct: true,
      reachable: () => true,
      onRelayed: { protocols: ['/meshsub/1.1.0'], addresses: [{ multiaddr: tcp() }] },
    })
    dialer.setRoomPeers(relay, [other])
    await settled(1)
    expect(dialed).toEqual([relayedTarget(), tcpTarget()])
  })

  it('uses WebRTC with a peer that announced no direct address (a tab)', async () => {
    const { dialer, dialed, settled } = setup({
      direct: true,
      reachable: () => true,
      onRelayed: { protocols: ['/meshsub/1.1.0'], addresses: tabAddrs() },
    })
    dialer.setRoomPeers(relay, [other])
    await settled(1)
    expect(dialed).toEqual([relayedTarget(), webrtcTarget()])
  })

  it('uses WebRTC when identify does not answer in time', async () => {
    const { dialer, dialed, settled } = setup({ direct: true, reachable: () => true })
    dialer.setRoomPeers(relay, [other])
    await settled(1)
    expect(dialed).toEqual([relayedTarget(), webrtcTarget()])
  })

  it('falls back to WebRTC in the same attempt when the TCP address does not reach the peer', async () => {
    const known = { protocols: ['/meshsub/1.1.0'], addresses: [{ multiaddr: tcp() }] }
    const { dialer, dialed, settled } = setup({
      direct: true,
      known,
      reachable: (target) => !target.includes('/tcp/40123'),
    })
    dialer.setRoomPeers(relay, [other])
    await settled(1)
    expect(dialed).toEqual([tcpTarget(), webrtcTarget()])
  })

  it('retries TCP, not WebRTC, when the peer answered but its handshake timed out (a busy machine)', async () => {
    const known = { protocols: ['/meshsub/1.1.0'], addresses: [{ multiaddr: tcp() }] }
    const { dialer, dialed, settled } = setup({
      direct: true,
      known,
      reachable: () => true,
      slowHandshake: true,
    })
    dialer.setRoomPeers(relay, [other])
    await settled(1)
    expect(dialed).toEqual([tcpTarget()])
    expect(dialer.known).toBe(1)
    // the next attempt, after its backoff, goes to the TCP address again
    await new Promise((resolve) => setTimeout(resolve, 1_200))
    dialer.tick()
    await settled(2)
    expect(dialed.filter((d) => d === webrtcTarget())).toEqual([])
  })
})

describe('Dialer: a tab and an agent’s WebSocket', () => {
  const ws = () => multiaddr('/ip4/127.0.0.1/tcp/40124/ws')
  const wsOnly = (addr: Multiaddr) => addr.getComponents().some((c) => c.name === 'ws')

  it('a tab dials an agent’s WebSocket as soon as identify names it, though the agent is the lower', async () => {
    const { dialer, dialed, settled, identified, them } = setup({
      direct: wsOnly,
      higher: true,
      reachable: () => true,
    })
    dialer.setRoomPeers(relay, [them])
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(dialed).toEqual([]) // not our turn, and nothing says the peer is an agent
    identified([ws(), tcp()]) // the agent introduced itself
    await settled(1)
    expect(dialed).toEqual([`${ws().toString()}/p2p/${them}`])
  })

  it('a tab that cannot open the agent’s address waits its turn as with any peer', async () => {
    const { dialer, dialed, identified, them } = setup({
      direct: wsOnly,
      higher: true,
      reachable: () => true,
    })
    dialer.setRoomPeers(relay, [them])
    identified([tcp()])
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(dialed).toEqual([])
  })

  it('an agent introduces itself to a tab, leaves it the dial, and dials WebRTC if the tab did not', async () => {
    const { dialer, dialed, settled } = setup({
      direct: true,
      own: ['/ip4/127.0.0.1/tcp/40125', '/ip4/127.0.0.1/tcp/40126/ws'],
      reachable: () => true,
      onRelayed: { protocols: ['/meshsub/1.1.0'], addresses: tabAddrs() },
    })
    dialer.setRoomPeers(relay, [other])
    await settled(1)
    expect(dialed).toEqual([relayedTarget()])
    // TAB_DIAL_WAIT_MS (300 here) later, no link from the tab: WebRTC
    await new Promise((resolve) => setTimeout(resolve, 350))
    dialer.tick()
    await settled(2)
    expect(dialed).toEqual([relayedTarget(), webrtcTarget()])
  })

  it('an agent leaves no dial to a peer identify did not name in time (maybe a Node peer on a busy machine)', async () => {
    const { dialer, dialed, settled } = setup({
      direct: true,
      own: ['/ip4/127.0.0.1/tcp/40125', '/ip4/127.0.0.1/tcp/40126/ws'],
      reachable: () => true,
    })
    dialer.setRoomPeers(relay, [other])
    await settled(1)
    expect(dialed).toEqual([relayedTarget(), webrtcTarget()])
  })

  it('an agent without a WebSocket dials a tab over WebRTC at once', async () => {
    const { dialer, dialed, settled } = setup({
      direct: true,
      own: ['/ip4/127.0.0.1/tcp/40125'],
      reachable: () => true,
      onRelayed: { protocols: ['/meshsub/1.1.0'], addresses: tabAddrs() },
    })
    dialer.setRoomPeers(relay, [other])
    await settled(1)
    expect(dialed).toEqual([relayedTarget(), webrtcTarget()])
  })
})

describe('directAddrs', () => {
  it('keeps TCP and WebSocket addresses, drops relayed and WebRTC ones, and names the peer', () => {
    const addrs = [
      '/ip4/127.0.0.1/tcp/40123',
      '/ip4/192.168.1.5/tcp/4002/ws',
      `${relay.addr.toString()}/p2p-circuit`,
      `${relay.addr.toString()}/p2p-circuit/webrtc`,
      '/ip4/127.0.0.1/udp/9/webrtc-direct',
    ].map((a) => ({ multiaddr: multiaddr(a) }))
    expect(directAddrs(other, addrs).map(String)).toEqual([
      `/ip4/127.0.0.1/tcp/40123/p2p/${other}`,
      `/ip4/192.168.1.5/tcp/4002/ws/p2p/${other}`,
    ])
    const ws = (a: Multiaddr) => a.getComponents().some((c) => c.name === 'ws')
    expect(directAddrs(other, addrs, ws).map(String)).toEqual([
      `/ip4/192.168.1.5/tcp/4002/ws/p2p/${other}`,
    ])
  })
})
