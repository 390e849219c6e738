/**
 * Gossip latency through TURN against direct, on this machine (run by hand;
 * not in CI):
 *
 *   node --import ./scripts/node-preload.mjs --import tsx bench/turn-latency.ts [N]
 *
 * Starts Debian's coturn (`turnserver`, apt-get install coturn) on loopback
 * with a shared secret, a relay, and two Node peers made as agents make them
 * (createSwarmNode, WebRTC through node-datachannel, GossipSub). Twice: once
 * with host candidates only (direct), once with TURN credentials from the
 * secret and iceTransportPolicy 'relay' (every byte goes through coturn).
 * Each time A publishes N pings, one every PING_GAP_MS; B answers each with
 * a pong; A times the round trip. Prints the link's path as link-paths.ts
 * reads it, what coturn did (its allocations and channel binds: the proof
 * that the TURN run went through it), median and p95 round trip, and half
 * of them as one-way estimates; the last line is JSON.
 *
 * Loopback has no propagation delay: what this measures is what the TURN hop
 * itself adds (coturn's user-space forwarding, a second UDP leg, and the
 * ChannelData framing); on the internet add the extra path to the TURN host.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { loadavg } from 'node:os'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { createRelay } from '../relay/relay'
import { iceConfig } from '../relay/ice'
import { createSwarmNode } from '../src/net/node.node.js'
import { silentLogger } from '../src/net/log'
import { MemoryStore, testValidate } from '../src/net/testing/memory-store'
import type { SwarmNode } from '../src/net/types'

/** Pings per path unless told (argv[2]). */
const DEFAULT_PINGS = 200
/** Between pings: well under the gossip rate limit (60 messages/s a neighbour). */
const PING_GAP_MS = 25
/** Ports for coturn: this bench's own range (hand-started servers 22000–22999). */
const TURN_PORT = 22478
const TURN_RELAY_PORTS = [22500, 22599] as const
const SECRET = 'turn-latency-bench'
/** Wait this long for the two peers to link before giving up. */
const LINK_TIMEOUT_MS = 30_000

const pings = Number(process.argv[2] ?? DEFAULT_PINGS)

/** What coturn said it did: TURN is proven used by its log, not by the link's reported path. */
const turnSeen = { allocations: 0, channelBinds: 0 }

function startCoturn(): ChildProcess {
  const child = spawn(
    'turnserver',
    [
      '-n', // no config file
      '--listening-ip=127.0.0.1',
      '--relay-ip=127.0.0.1',
      `--listening-port=${TURN_PORT}`,
      `--min-port=${TURN_RELAY_PORTS[0]}`,
      `--max-port=${TURN_RELAY_PORTS[1]}`,
      '--use-auth-secret',
      `--static-auth-secret=${SECRET}`,
      '--realm=murmuration',
      // both peers are on loopback here; deploy/turnserver.conf denies it
      '--allow-loopback-peers',
      '--no-cli',
      '--no-tls',
      '--no-dtls',
      '--log-file=stdout',
      '-v', // a line per request: the allocations and channel binds counted below
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  child.stdout?.on('data', (d: Buffer) => {
    const text = d.toString()
    if (process.env.TURN_LOG) process.stdout.write(text)
    turnSeen.allocations += text.split('ALLOCATE processed, success').length - 1
    turnSeen.channelBinds += text.split('CHANNEL_BIND processed, success').length - 1
  })
  child.on('error', (err) => {
    console.error(`cannot start turnserver (apt-get install coturn): ${err.message}`)
    process.exit(1)
  })
  return child
}

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
}

interface PathResult {
  /** as link-paths.ts reads it from node-datachannel's stats */
  path: string
  /** coturn's successful ALLOCATE and CHANNEL_BIND during this path's run */
  turnAllocations: number
  turnChannelBinds: number
  linkMs: number
  pings: number
  lost: number
  medianRttMs: number
  p95RttMs: number
}

async function measure(relayAddrs: string[], viaTurn: boolean): Promise<PathResult> {
  const rtcConfiguration = viaTurn
    ? async () => ({
        iceServers: iceConfig(
          { urls: [`turn:127.0.0.1:${TURN_PORT}`], secret: SECRET },
          Date.now(),
        ).iceServers.filter((s) => s.urls.some((u) => u.startsWith('turn:'))),
        iceTransportPolicy: 'relay' as const,
      })
    : { iceServers: [] }
  const room = viaTurn ? 'bench-turn' : 'bench-direct'
  const started = Date.now()
  const before = { ...turnSeen }
  const make = () =>
    createSwarmNode({
      relays: relayAddrs,
      room,
      validate: testValidate,
      store: new MemoryStore(),
      logger: silentLogger,
      rtcBindAddress: '127.0.0.1',
      directLinks: false,
      rtcConfiguration,
    })
  const a: SwarmNode = await make()
  const b: SwarmNode = await make()
  try {
    const link = () => a.connections().peers.find((p) => p.peerId === b.peerId)
    await waitFor(
      () => link()?.kind === 'direct-webrtc' && link()?.path !== undefined,
      LINK_TIMEOUT_MS,
      'a WebRTC link with a known path',
    )
    const linkMs = Date.now() - started
    const sentAt = new Map<string, number>()
    const rtts: number[] = []
    // a pong's bytes differ from its ping's: a message's id is its content
    const enc = new TextEncoder()
    b.subscribe('ping', (bytes) => {
      void b.publish('pong', enc.encode(`pong ${new TextDecoder().decode(bytes)}`)).catch(() => {})
    })
    a.subscribe('pong', (bytes) => {
      const id = new TextDecoder().decode(bytes).slice('pong '.length)
      const at = sentAt.get(id)
      if (at !== undefined) rtts.push(performance.now() - at)
      sentAt.delete(id)
    })
    a.subscribe('ping', () => {})
    b.subscribe('pong', () => {})
    // warm up until a pong comes back: both subscriptions have propagated
    let warm = 0
    await waitFor(
      () => {
        const id = `warm-${warm++}-${Math.random()}`
        sentAt.set(id, performance.now())
        void a.publish('ping', new TextEncoder().encode(id)).catch(() => {})
        return rtts.length > 0
      },
      LINK_TIMEOUT_MS,
      'the first pong',
    )
    await new Promise((r) => setTimeout(r, 500))
    rtts.length = 0
    sentAt.clear()
    for (let i = 0; i < pings; i++) {
      const id = `${room}-${i}-${Math.random()}`
      sentAt.set(id, performance.now())
      void a.publish('ping', new TextEncoder().encode(id)).catch(() => {})
      await new Promise((r) => setTimeout(r, PING_GAP_MS))
    }
    await new Promise((r) => setTimeout(r, 1_000))
    rtts.sort((x, y) => x - y)
    return {
      path: link()?.path ?? 'unknown',
      turnAllocations: turnSeen.allocations - before.allocations,
      turnChannelBinds: turnSeen.channelBinds - before.channelBinds,
      linkMs,
      pings,
      lost: pings - rtts.length,
      medianRttMs: quantile(rtts, 0.5),
      p95RttMs: quantile(rtts, 0.95),
    }
  } finally {
    await Promise.all([a.stop(), b.stop()])
  }
}

const coturn = startCoturn()
const relay = await createRelay({
  port: 0,
  privateKey: await generateKeyPair('Ed25519'),
  logger: silentLogger,
})
try {
  await new Promise((r) => setTimeout(r, 1_000)) // coturn binds its port
  const results: Record<string, PathResult> = {}
  for (const [name, viaTurn] of [
    ['direct', false],
    ['turn', true],
  ] as const) {
    const r = await measure(relay.multiaddrs, viaTurn)
    results[name] = r
    const f = (ms: number) => ms.toFixed(2)
    console.log(
      `${name.padEnd(6)} path=${r.path} (coturn: ${r.turnAllocations} allocations, ${r.turnChannelBinds} channel binds) linked in ${r.linkMs} ms; ${r.pings - r.lost}/${r.pings} pongs; ` +
        `round trip median ${f(r.medianRttMs)} ms, p95 ${f(r.p95RttMs)} ms ` +
        `(one way ≈ ${f(r.medianRttMs / 2)} / ${f(r.p95RttMs / 2)} ms)`,
    )
  }
  console.log(JSON.stringify({ loadavg: loadavg()[0], ...results }))
} finally {
  await relay.stop()
  coturn.kill('SIGTERM')
}
process.exit(0)
