import { createPeerScoreParams, validatePeerScoreParams } from '@libp2p/gossipsub/score'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { PeerId } from '@libp2p/interface'
import type { GossipSub } from '@libp2p/gossipsub'
import { describe, expect, it } from 'vitest'
import {
  GOSSIP_BUCKET_CAPACITY,
  GOSSIP_BUCKET_REFILL_PER_S,
  GOSSIP_BYTES_PER_TOKEN,
  GOSSIP_SCORE_DECAY_MS,
  INVALID_MESSAGE_DECAY,
  STRIKE_SCORE_WEIGHT,
} from './constants'
import { guardInbound, swarmGossipsubOptions } from './gossip'
import { messageCost, RateLimiter } from './rate-limit'
import type { NetLogger } from './log'

describe('RateLimiter (a token bucket per neighbour)', () => {
  it('lets a full burst through, then only the refill rate', () => {
    const limiter = new RateLimiter()
    let passed = 0
    for (let i = 0; i < 2 * GOSSIP_BUCKET_CAPACITY; i++) if (limiter.take('a', 1, 0)) passed++
    expect(passed).toBe(GOSSIP_BUCKET_CAPACITY)
    // ten seconds later: ten seconds' worth of tokens, no more
    passed = 0
    for (let i = 0; i < 2 * GOSSIP_BUCKET_CAPACITY; i++) if (limiter.take('a', 1, 10_000)) passed++
    expect(passed).toBe(10 * GOSSIP_BUCKET_REFILL_PER_S)
    // another neighbour has its own bucket
    expect(limiter.take('b', 1, 10_000)).toBe(true)
  })

  it('charges big messages more, refills no more than capacity, and ignores a clock stepping back', () => {
    expect(messageCost(100)).toBe(1)
    expect(messageCost(256 * 1024)).toBe(1 + (256 * 1024) / GOSSIP_BYTES_PER_TOKEN)
    const limiter = new RateLimiter({ capacity: 10, refillPerS: 1, bytesPerToken: 1024 })
    expect(limiter.take('a', 10, 1_000)).toBe(true)
    expect(limiter.take('a', 1, 500)).toBe(false)
    expect(limiter.tokens('a', 1_000_000)).toBe(10)
    limiter.prune(2_000_000)
    expect(limiter.size).toBe(0)
  })
})

interface Rpc {
  messages: { data?: Uint8Array; topic: string }[]
}

/** Test messages name their author as their first word, as a record names its `from`. */
const authorOf = (_topic: string, bytes: Uint8Array) =>
  new TextDecoder().decode(bytes).split(' ')[0]

async function setup(now: { t: number }, named: typeof authorOf | null = authorOf) {
  const delivered: Rpc[] = []
  const fake = {
    handleReceivedRpc: async (_from: PeerId, rpc: Rpc) => {
      delivered.push({ messages: [...rpc.messages] })
    },
  }
  const logs: string[] = []
  const strikes = new Map<string, number>()
  const logger: NetLogger = {
    debug: () => {},
    info: () => {},
    warn: (msg) => void logs.push(msg),
    error: (msg) => void logs.push(msg),
  }
  guardInbound({
    pubsub: fake as unknown as GossipSub,
    limiter: new RateLimiter(),
    logger,
    ...(named ? { authorOf: named } : {}),
    onFlood: (peer, count) => strikes.set(peer, (strikes.get(peer) ?? 0) + count),
    now: () => now.t,
  })
  const neighbour = peerIdFromPrivateKey(await generateKeyPair('Ed25519'))
  const other = peerIdFromPrivateKey(await generateKeyPair('Ed25519'))
  const send = (from: PeerId, author: PeerId, n: number) =>
    fake.handleReceivedRpc(from, {
      messages: Array.from({ length: n }, (_, i) => ({
        data: new TextEncoder().encode(`${author.toString()} m${i}`),
        topic: 't',
      })),
    })
  const count = () => delivered.reduce((n, rpc) => n + rpc.messages.length, 0)
  return { send, count, logs, strikes, neighbour, other }
}

describe('guardInbound (before GossipSub checks a signature)', () => {
  it('passes an honest burst whole', async () => {
    const now = { t: 0 }
    const { send, count, logs, strikes, neighbour, other } = await setup(now)
    // e.g. 64 executors' claims and results, forwarded by one neighbour, plus its own
    await send(neighbour, other, 2 * 64)
    await send(neighbour, neighbour, 20)
    expect(count()).toBe(2 * 64 + 20)
    expect(logs).toEqual([])
    expect(strikes.size).toBe(0)
  })

  it("drops a neighbour's own flood past its bucket, strikes it, and logs once per interval", async () => {
    const now = { t: 0 }
    const { send, count, logs, strikes, neighbour } = await setup(now)
    for (let i = 0; i < 50; i++) await send(neighbour, neighbour, 100)
    expect(count()).toBe(GOSSIP_BUCKET_CAPACITY)
    expect(strikes.get(neighbour.toString())).toBe(5_000 - GOSSIP_BUCKET_CAPACITY)
    expect(logs).toHaveLength(1)
    now.t = 1_000
    await send(neighbour, neighbour, 100)
    expect(count()).toBe(GOSSIP_BUCKET_CAPACITY + GOSSIP_BUCKET_REFILL_PER_S)
    expect(logs).toHaveLength(1)
  })

  it('drops a forwarded flood past the bucket without striking the honest forwarder', async () => {
    const now = { t: 0 }
    const { send, count, strikes, neighbour, other } = await setup(now)
    await send(neighbour, other, 2_000)
    expect(count()).toBe(GOSSIP_BUCKET_CAPACITY)
    expect(strikes.size).toBe(0)
  })

  it('throttles but never strikes when it cannot tell the author', async () => {
    const throws = () => {
      throw new Error('junk')
    }
    for (const named of [null, throws]) {
      const { send, count, strikes, neighbour } = await setup({ t: 0 }, named)
      await send(neighbour, neighbour, 2_000)
      expect(count()).toBe(GOSSIP_BUCKET_CAPACITY)
      expect(strikes.size).toBe(0)
    }
  })
})

describe('GossipSub peer score', () => {
  it('is accepted by the library, and strikes lower it to the graylist before the ban', () => {
    const opts = swarmGossipsubOptions({
      maxRecordBytes: 1024,
      topics: ['murmuration/3/x/plan', 'murmuration/3/x/presence'],
      strikes: (peer) => (peer === 'bad' ? 16 : 0),
    })
    const params = createPeerScoreParams(opts.scoreParams)
    expect(() => validatePeerScoreParams(params)).not.toThrow()
    expect(Object.keys(params.topics)).toHaveLength(2)
    expect(params.appSpecificScore('bad') * STRIKE_SCORE_WEIGHT).toBeLessThanOrEqual(
      opts.scoreThresholds!.graylistThreshold!,
    )
    expect(params.appSpecificScore('good')).toBe(-0)
  })

  it('decays every GOSSIP_SCORE_DECAY_MS, as fast per second as the stated rates', () => {
    const opts = swarmGossipsubOptions({
      maxRecordBytes: 1024,
      topics: ['murmuration/3/x/plan'],
      strikes: () => 0,
    })
    const params = createPeerScoreParams(opts.scoreParams)
    expect(params.decayInterval).toBe(GOSSIP_SCORE_DECAY_MS)
    const topic = params.topics['murmuration/3/x/plan']!
    // over a minute: six decays of the topic's factor, sixty of the per-second rate
    const steps = 60_000 / params.decayInterval
    expect(topic.invalidMessageDeliveriesDecay ** steps).toBeCloseTo(
      INVALID_MESSAGE_DECAY ** 60,
      10,
    )
    expect(topic.firstMessageDeliveriesDecay ** steps).toBeCloseTo(0.9 ** 60, 10)
  })
})
