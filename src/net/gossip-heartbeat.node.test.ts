/**
 * A quiet room slows GossipSub's heartbeat (QUIET_TICK_MS) through
 * GossipAdapter.setHeartbeat, which relies on @libp2p/gossipsub reading its
 * heartbeat interval afresh each time it schedules the next heartbeat. A real
 * GossipSub, no transports: its heartbeat runs whether or not it has peers.
 */
import { gossipsub } from '@libp2p/gossipsub'
import { identify } from '@libp2p/identify'
import { createLibp2p } from 'libp2p'
import { afterEach, expect, it } from 'vitest'
import { GossipAdapter } from './gossip'
import { silentLogger } from './log'

const running: Array<{ stop(): void | Promise<void> }> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((n) => n.stop()))
})

it('setHeartbeat changes the gap of a running GossipSub from its next heartbeat on', async () => {
  const libp2p = await createLibp2p({
    services: { identify: identify(), pubsub: gossipsub({ heartbeatInterval: 100 }) },
  })
  running.push(libp2p)
  const adapter = new GossipAdapter({
    pubsub: libp2p.services.pubsub,
    validate: () => 'accept',
    maxRecordBytes: 1_000,
    logger: silentLogger,
    onReject: () => {},
  })
  let beats = 0
  libp2p.services.pubsub.addEventListener('gossipsub:heartbeat', () => beats++)
  const count = async (ms: number) => {
    beats = 0
    await new Promise((r) => setTimeout(r, ms))
    return beats
  }
  // the library waits GossipsubHeartbeatInitialDelay (100 ms) before its first
  await new Promise((r) => setTimeout(r, 300))
  expect(await count(1_000)).toBeGreaterThanOrEqual(5)
  adapter.setHeartbeat(1_000)
  await new Promise((r) => setTimeout(r, 200)) // the heartbeat already scheduled
  expect(await count(2_000)).toBeLessThanOrEqual(3)
  adapter.setHeartbeat(100)
  await new Promise((r) => setTimeout(r, 1_100))
  expect(await count(1_000)).toBeGreaterThanOrEqual(5)
})
