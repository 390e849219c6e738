/**
 * A flood from one address against a real relay process (`relay/main.ts`, built,
 * default limits), while two honest peers, made as agents make theirs
 * (createSwarmNode: reservation, room discovery, WebRTC), join a room.
 *
 * The flood comes from 127.0.0.2 (all of 127.0.0.0/8 is loopback on Linux:
 * another host to a relay on 127.0.0.1), in a process of its own
 * (limits-flooder.ts): peers with fresh PeerIds asking for reservations and
 * opening discovery streams in a loop, and 200 WebSockets that never
 * handshake, holding handshake slots. Without per-address caps those fill
 * the relay's 128 handshake slots and honest peers are refused.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createSwarmNode } from '../src/net/node.node.js'
import { silentLogger } from '../src/net/log'
import { MemoryStore, testValidate } from '../src/net/testing/memory-store'
import type { SwarmNode } from '../src/net/types'
import { RELAY_ENTRY } from '../scripts/build-cli.mjs'

/** Flood peers: 4 discovery streams each, so 25 of them overdraw the 64-request burst. */
const FLOOD_PEERS = 25
const FLOOD_SOCKETS = 200

const children: ChildProcess[] = []
const nodes: SwarmNode[] = []
let dir: string | undefined
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()))
  for (const c of children) c.kill('SIGTERM')
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

function run(args: string[]): { child: ChildProcess; out: () => string } {
  const child = spawn(process.execPath, ['--import', './scripts/node-preload.mjs', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()))
  return { child, out: () => out }
}

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const count = (text: string, re: RegExp) => text.split('\n').filter((l) => re.test(l)).length

describe('relay under a flood from one address', () => {
  it('refuses the flood (one log line per kind) and honest peers still join and link', async () => {
    dir = await mkdtemp(join(tmpdir(), 'murmuration-flood-'))
    const relay = run([RELAY_ENTRY, '--port', '0', '--key-file', join(dir, 'relay.key')])
    await waitFor(() => relay.out().includes('RELAY_READY'), 30_000, 'the relay')
    const relayAddr = /^RELAY_MULTIADDR (\S+)$/m.exec(relay.out())?.[1] as string

    const flood = run([
      // a test's own program: run from source
      '--import',
      'tsx',
      'relay/limits-flooder.ts',
      relayAddr,
      '127.0.0.2',
      String(FLOOD_PEERS),
      String(FLOOD_SOCKETS),
    ])
    await waitFor(() => flood.out().includes('FLOOD_READY'), 60_000, 'the flood')
    const stats = JSON.parse(/FLOOD_READY (.*)/.exec(flood.out())?.[1] as string) as {
      discoveryRefused: number
      socketsOpened: number
    }
    expect(stats.discoveryRefused).toBeGreaterThan(0)
    expect(stats.socketsOpened).toBeGreaterThan(100)

    // honest peers from 127.0.0.1 while the flood goes on
    const started = Date.now()
    for (let i = 0; i < 2; i++) {
      nodes.push(
        await createSwarmNode({
          relays: [relayAddr],
          room: 'honest',
          validate: testValidate,
          store: new MemoryStore(),
          logger: silentLogger,
          rtcBindAddress: '127.0.0.1',
          directLinks: false,
        }),
      )
    }
    const [a, b] = nodes as [SwarmNode, SwarmNode]
    const linked = (x: SwarmNode, y: SwarmNode) =>
      x.connections().peers.some((p) => p.peerId === y.peerId && p.kind === 'direct-webrtc')
    await waitFor(() => linked(a, b) && linked(b, a), 45_000, 'the honest peers to link')
    console.info(`honest peers linked ${Date.now() - started} ms after starting, under the flood`)
    expect(flood.child.exitCode).toBeNull() // still flooding

    const log = relay.out()
    expect(count(log, /refused a handshake from 127\.0\.0\.2/)).toBe(1)
    expect(count(log, /refused a discovery request from 127\.0\.0\.2/)).toBe(1)
    expect(log).not.toMatch(/refused .* from 127\.0\.0\.1/)
    // a line per refusal would be hundreds
    expect(count(log, /refused/)).toBeLessThanOrEqual(6)
  }, 150_000)
})
