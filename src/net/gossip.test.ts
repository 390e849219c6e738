/** The inbound guard: floods are throttled, and only a neighbour's own messages count against it. */
import { describe, expect, it } from 'vitest'
import { peerIdFromString } from '@libp2p/peer-id'
import type { GossipSub } from '@libp2p/gossipsub'
import { guardInbound } from './gossip'
import { silentLogger } from './log'
import { RateLimiter } from './rate-limit'

const NEIGHBOUR = '12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA'
const enc = (s: string) => new TextEncoder().encode(s)

/** A stand-in with GossipSub's inbound entry point; records what gets through. */
function fakePubsub() {
  const passed: string[] = []
  const pubsub = {
    async handleReceivedRpc(_from: unknown, rpc: { messages: { data?: Uint8Array }[] }) {
      for (const m of rpc.messages) passed.push(new TextDecoder().decode(m.data))
    },
  }
  return { pubsub, passed }
}

async function send(pubsub: object, authors: string[]) {
  const entry = pubsub as {
    handleReceivedRpc(
      from: unknown,
      rpc: { messages: { topic: string; data: Uint8Array }[] },
    ): Promise<void>
  }
  await entry.handleReceivedRpc(peerIdFromString(NEIGHBOUR), {
    messages: authors.map((a, i) => ({ topic: 't', data: enc(`${a} ${i}`) })),
  })
}

describe('inbound guard', () => {
  const limits = { capacity: 10, refillPerS: 1, bytesPerToken: 4_096 }

  for (const [what, author, struck] of [
    ['its own messages', NEIGHBOUR, 5],
    ['messages it forwards', 'someone-else', 0],
  ] as const) {
    it(`drops what is past a neighbour's bucket, and strikes it for ${what}: ${struck}`, async () => {
      const { pubsub, passed } = fakePubsub()
      const floods: number[] = []
      guardInbound({
        pubsub: pubsub as unknown as GossipSub,
        limiter: new RateLimiter(limits),
        logger: silentLogger,
        authorOf: (_t, bytes) => new TextDecoder().decode(bytes).split(' ')[0],
        onFlood: (peer, count) => {
          expect(peer).toBe(NEIGHBOUR)
          floods.push(count)
        },
        now: () => 1_000,
      })
      await send(
        pubsub,
        Array.from({ length: 15 }, () => author),
      )
      expect(passed).toHaveLength(10)
      expect(floods.reduce((a, b) => a + b, 0)).toBe(struck)
    })
  }

  it('never strikes when it cannot tell the author (authorOf absent or throwing)', async () => {
    for (const authorOf of [
      undefined,
      () => {
        throw new Error('junk')
      },
    ]) {
      const { pubsub } = fakePubsub()
      let struck = 0
      guardInbound({
        pubsub: pubsub as unknown as GossipSub,
        limiter: new RateLimiter(limits),
        logger: silentLogger,
        ...(authorOf ? { authorOf } : {}),
        onFlood: () => struck++,
      })
      await send(
        pubsub,
        Array.from({ length: 15 }, () => NEIGHBOUR),
      )
      expect(struck).toBe(0)
    }
  })
})
