/**
 * An agent's own --turn servers reach its WebRTC transport: two Node swarm
 * nodes (as agents make them) link over WebRTC through a real relay, with
 * the RTCConfiguration agentRtcConfiguration() makes from
 * `--relay … --turn turn:127.0.0.1:PORT --turn-secret S`. A bare STUN/TURN
 * listener on that port sees node-datachannel's Binding requests (the STUN
 * side of a turn: URL) and its TURN Allocate, which, challenged with a
 * realm and nonce, it repeats with the username made from the secret and
 * a MESSAGE-INTEGRITY that checks out against the credential coturn would
 * derive from that secret.
 */
import { createHash, createHmac } from 'node:crypto'
import { createSocket, type RemoteInfo } from 'node:dgram'
import { afterEach, describe, expect, it } from 'vitest'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { createRelay } from '../../relay/relay'
import { createSwarmNode } from '../net/node.node.js'
import { silentLogger } from '../net/log'
import { MemoryStore, testValidate } from '../net/testing/memory-store'
import { agentRtcConfiguration } from './agent-ice'
import type { AgentOptions } from './agent-options'

const MAGIC_COOKIE = 0x2112a442
const BINDING_REQUEST = 0x0001
const ALLOCATE_REQUEST = 0x0003
const ALLOCATE_ERROR = 0x0113
const ATTR_USERNAME = 0x0006
const ATTR_MESSAGE_INTEGRITY = 0x0008
const ATTR_ERROR_CODE = 0x0009
const ATTR_REALM = 0x0014
const ATTR_NONCE = 0x0015

const running: Array<{ stop(): Promise<void> | void }> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((n) => n.stop()))
})

function attr(type: number, value: Buffer): Buffer {
  const head = Buffer.alloc(4)
  head.writeUInt16BE(type, 0)
  head.writeUInt16BE(value.length, 2)
  return Buffer.concat([head, value, Buffer.alloc((4 - (value.length % 4)) % 4)])
}

/** Attribute values by type, and where each attribute starts. */
function attrs(msg: Buffer): Map<number, Buffer & { at?: number }> {
  const out = new Map<number, Buffer & { at?: number }>()
  for (let at = 20; at + 4 <= msg.length;) {
    const type = msg.readUInt16BE(at)
    const len = msg.readUInt16BE(at + 2)
    out.set(type, Object.assign(msg.subarray(at + 4, at + 4 + len), { at }))
    at += 4 + len + ((4 - (len % 4)) % 4)
  }
  return out
}

const REALM = 'murmuration'

/** Whether `msg`'s MESSAGE-INTEGRITY is right for the long-term credential (RFC 5389 §15.4). */
function integrityHolds(msg: Buffer, username: string, password: string): boolean {
  const mi = attrs(msg).get(ATTR_MESSAGE_INTEGRITY)
  if (mi?.at === undefined) return false
  const signed = Buffer.from(msg.subarray(0, mi.at))
  signed.writeUInt16BE(mi.at - 20 + 24, 2) // the length as if MESSAGE-INTEGRITY ended the message
  const key = createHash('md5').update(`${username}:${REALM}:${password}`).digest()
  return createHmac('sha1', key).update(signed).digest().equals(mi)
}

/** A UDP listener that logs STUN requests and challenges a TURN Allocate (401, realm, nonce). */
async function stunTurnListener(secret: string) {
  const seen = { bindings: 0, allocates: 0, usernames: [] as string[], integrity: [] as boolean[] }
  const socket = createSocket('udp4')
  socket.on('message', (msg: Buffer, from: RemoteInfo) => {
    if (msg.length < 20 || msg.readUInt32BE(4) !== MAGIC_COOKIE) return
    const type = msg.readUInt16BE(0)
    if (type === BINDING_REQUEST) seen.bindings++
    if (type !== ALLOCATE_REQUEST) return
    seen.allocates++
    const username = attrs(msg).get(ATTR_USERNAME)
    if (username !== undefined) {
      const name = username.toString()
      seen.usernames.push(name)
      // coturn's shared-secret check: the password is base64(HMAC-SHA1(secret, username))
      const password = createHmac('sha1', secret).update(name).digest('base64')
      seen.integrity.push(integrityHolds(msg, name, password))
      return
    }
    const body = Buffer.concat([
      attr(
        ATTR_ERROR_CODE,
        Buffer.concat([Buffer.from([0, 0, 4, 1]), Buffer.from('Unauthorized')]),
      ),
      attr(ATTR_REALM, Buffer.from(REALM)),
      attr(ATTR_NONCE, Buffer.from('0123456789abcdef')),
    ])
    const head = Buffer.alloc(20)
    head.writeUInt16BE(ALLOCATE_ERROR, 0)
    head.writeUInt16BE(body.length, 2)
    msg.copy(head, 4, 4, 20) // cookie and transaction id
    socket.send(Buffer.concat([head, body]), from.port, from.address)
  })
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r))
  running.push({ stop: () => void socket.close() })
  return { port: socket.address().port, seen }
}

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

describe('agent --turn reaches the WebRTC transport', () => {
  it('node-datachannel asks the --turn server for STUN and a TURN allocation with the secret’s username', async () => {
    const turn = await stunTurnListener('test-secret')
    const relay = await createRelay({
      port: 0,
      privateKey: await generateKeyPair('Ed25519'),
      logger: silentLogger,
    })
    running.push(relay)
    const options: Pick<AgentOptions, 'ice' | 'relays' | 'app'> = {
      relays: relay.multiaddrs,
      app: new URL('http://127.0.0.1:9'),
      ice: { kind: 'servers', urls: [`turn:127.0.0.1:${turn.port}`], secret: 'test-secret' },
    }
    const nodes = []
    for (let i = 0; i < 2; i++) {
      const node = await createSwarmNode({
        relays: relay.multiaddrs,
        room: 'ice',
        validate: testValidate,
        store: new MemoryStore(),
        logger: silentLogger,
        rtcBindAddress: '127.0.0.1',
        directLinks: false,
        rtcConfiguration: agentRtcConfiguration(options, () => {}),
      })
      running.push(node)
      nodes.push(node)
    }
    await waitFor(
      () => turn.seen.bindings > 0 && turn.seen.usernames.length > 0,
      20_000,
      'STUN and TURN requests',
    )
    // intact, ':' and all, and signed with the credential made from the secret
    // (node-datachannel puts both in a URL: node.node.ts percent-encodes them)
    expect(turn.seen.usernames[0]).toMatch(/^\d+:murmuration$/)
    expect(turn.seen.integrity[0]).toBe(true)
    // the two still link (host candidates on loopback), TURN or not
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]]
    await waitFor(
      () => a.connections().peers.some((p) => p.peerId === b.peerId && p.kind === 'direct-webrtc'),
      20_000,
      'a WebRTC link',
    )
  }, 45_000)
})
