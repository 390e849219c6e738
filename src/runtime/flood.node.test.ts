/**
 * A member's flood stays bounded at every peer (issue 25). Six real peers in
 * a room over real libp2p (relay, TCP links, GossipSub, anti-entropy): four
 * honest peers running the real runtime (plan store, gossip validator,
 * sealed sync), and one member with two PeerIds. Its first PeerId publishes
 * 2,000 valid sealed records (cancels of goals it does not own) as fast as
 * gossip takes them; its second holds all 2,000 and offers them through
 * sync. Every honest store must stay within the author quota the whole time,
 * and end holding the same records: the quota's lowest ids.
 */
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { afterEach, describe, expect, it } from 'vitest'
import { createRelay } from '../../relay/relay'
import { silentLogger } from '../net/log'
import { createSwarmNode } from '../net/node.node.js'
import type { RecordStore, SwarmNode } from '../net/types'
import { encodeRecord } from '../protocol/codec'
import { contentId } from '../protocol/hash'
import { AUTHOR_QUOTA } from '../protocol/limits'
import { newCancel } from '../protocol/records'
import { deriveRoomKey, newRoomSecret, sealRecord } from '../protocol/room-key'
import { roomTopics } from '../protocol/topics'
import { createNodeRuntime } from './node'
import { SealedStore } from './sealed'
import type { PeerRuntime } from './types'

const ROOM = deriveRoomKey('flood-test', newRoomSecret())
const FLOOD = 2_000
/** the flooder publishes as fast as it can, this many records between two turns of the event loop */
const PUBLISH_BATCH = 50
const HONEST = 4

const running: Array<{ stop(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()))
})

async function waitFor(cond: () => boolean, ms: number, what: () => string): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** A store that holds every record it is given and offers them all (the flooder's second PeerId). */
function holdAll(records: Map<string, Uint8Array>): RecordStore {
  return {
    ids: () => records.keys(),
    get: (id) => records.get(id),
    add: () => Promise.resolve('ignore'),
  }
}

describe('a member flooding valid records', () => {
  it('grows no honest store past the author quota, by gossip or by sync, and the stores agree', async () => {
    const relay = await createRelay({
      port: 0,
      privateKey: await generateKeyPair('Ed25519'),
      logger: silentLogger,
    })
    running.push(relay)
    const relays = relay.multiaddrs

    // the flood, made and signed beforehand
    const key = await generateKeyPair('Ed25519')
    const flooder = peerIdFromPrivateKey(key).toString()
    const signer = { peerId: flooder, sign: (data: Uint8Array) => key.sign(data) }
    const plain = new Map<string, Uint8Array>()
    for (let i = 0; i < FLOOD; i++) {
      const goal = contentId(['someone else’s goal', i])
      const cancel = newCancel(ROOM.id, flooder, goal, 1_700_000_000_000 + i, '')
      plain.set(cancel.id, await encodeRecord(cancel, signer))
    }
    const kept = [...plain.keys()].sort().slice(0, AUTHOR_QUOTA.cancel)

    const honest: PeerRuntime[] = await Promise.all(
      Array.from({ length: HONEST }, async () => {
        const runtime = await createNodeRuntime({
          room: ROOM,
          role: 'observer',
          relays,
          rtcBindAddress: '127.0.0.1',
          log: () => {},
        })
        running.push(runtime)
        return runtime
      }),
    )
    const member = async (store: RecordStore, privateKey?: typeof key): Promise<SwarmNode> => {
      const node = await createSwarmNode({
        relays,
        room: ROOM.id,
        validate: () => 'accept',
        store,
        rtcBindAddress: '127.0.0.1',
        logger: silentLogger,
        ...(privateKey ? { privateKey } : {}),
      })
      running.push(node)
      return node
    }
    const gossiper = await member(holdAll(new Map()), key)
    const holder = await member(new SealedStore(ROOM, holdAll(plain)))
    const topic = roomTopics(ROOM.id).plan
    gossiper.subscribe(topic, () => {})
    holder.subscribe(topic, () => {})

    const linked = (p: { connections: PeerRuntime['connections'] }) =>
      p.connections().direct + p.connections().other
    await waitFor(
      () => honest.every((p) => linked(p) >= 3) && linked(holder) >= 1 && linked(gossiper) >= 1,
      20_000,
      () => `links (${honest.map(linked)})`,
    )

    const sizes = () => honest.map((p) => p.records().length)
    let largest = 0
    const watch = setInterval(() => (largest = Math.max(largest, ...sizes())), 500)
    const started = Date.now()
    const sealed = [...plain.values()].map((bytes) => sealRecord(ROOM, bytes))
    for (let i = 0; i < sealed.length; i += PUBLISH_BATCH) {
      // not awaited: a publish waits on the links' back-pressure, a flooder does not
      for (const bytes of sealed.slice(i, i + PUBLISH_BATCH)) {
        gossiper.publish(topic, bytes).catch(() => {})
      }
      await new Promise((r) => setImmediate(r))
    }
    // the holder offers every record in sync: each honest peer syncs with it now
    await holder.syncNow({ peers: HONEST })
    const same = () =>
      honest.every((p) => {
        const ids = p
          .records()
          .map((r) => r.id)
          .sort()
        return ids.length === kept.length && ids.every((id, i) => id === kept[i])
      })
    await waitFor(same, 20_000, () => `every store to hold the quota's lowest ids (${sizes()})`)
    clearInterval(watch)
    largest = Math.max(largest, ...sizes())
    console.log(
      `flood of ${FLOOD}: largest honest store ${largest} (quota ${AUTHOR_QUOTA.cancel}), ` +
        `synced ${honest.map((p) => p.traffic().synced)}, received by gossip ` +
        `${honest.map((p) => p.traffic().received)}, ${Date.now() - started} ms`,
    )
    expect(largest).toBeLessThanOrEqual(AUTHOR_QUOTA.cancel)
    expect(same()).toBe(true)
  }, 90_000)
})
