/**
 * Real peers over real libp2p (relay, WebRTC between Node peers, GossipSub
 * with signing and validation, anti-entropy), the real role core, the
 * built-in offline model: a goal runs to a finished plan, every peer derives
 * the same tree, and a late observer catches up.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { afterEach, describe, expect, it } from 'vitest'
import { createRelay } from '../../relay/relay'
import { silentLogger } from '../net/log'
import { contentId } from '../protocol/hash'
import { deriveRoomKey, newRoomSecret, type RoomKey } from '../protocol/room-key'
import { createNodeRuntime } from './node'
import type { PeerRuntime, Role } from './types'

/** one room (and secret) for the test's peers */
const ROOM = deriveRoomKey('runtime-test', newRoomSecret())
const running: Array<{ stop(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()))
})

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

async function peer(
  relays: string[],
  role: Role,
  room: RoomKey = ROOM,
  dataDir?: string,
): Promise<PeerRuntime> {
  const runtime = await createNodeRuntime({
    room,
    role,
    relays,
    ...(dataDir ? { dataDir } : {}),
    rtcBindAddress: '127.0.0.1',
    providerInit: { latencyMs: 20 },
    // executors with every tool a person can allow the offline model, so every leaf can be done
    tools: { runCode: true, webSearch: false, knowledgeAnswers: true },
    log: () => {},
  })
  running.push(runtime)
  return runtime
}

const linkedTo = (p: PeerRuntime) => p.connections().direct + p.connections().other
const fingerprint = (runtime: PeerRuntime) => contentId(runtime.tree() as unknown as never)

describe('runtime over real libp2p', () => {
  it('runs a goal to a finished plan that every peer derives alike, and a late observer catches up', async () => {
    const relay = await createRelay({
      port: 0,
      privateKey: await generateKeyPair('Ed25519'),
      logger: silentLogger,
    })
    running.push(relay)
    const roles: Role[] = [
      'decomposer',
      'decomposer',
      'scorer',
      'scorer',
      'executor',
      'executor',
      'observer',
    ]
    const peers = await Promise.all(roles.map((role) => peer(relay.multiaddrs, role)))
    const observer = peers[peers.length - 1]!
    const linked = (p: PeerRuntime) => p.connections().direct + p.connections().other
    await waitFor(
      () => peers.every((p) => linked(p) >= roles.length - 1),
      30_000,
      `a full mesh (${peers.map(linked)})`,
    )

    const goal = await peers[0]!.submitGoal('Plan a weekend trip to Kyoto', 2)
    await waitFor(() => observer.tree().goals[0]?.status === 'done', 60_000, 'the plan to finish')

    const tree = observer.tree()
    expect(tree.goals[0]!.id).toBe(goal)
    expect(tree.progress.leavesDone).toBe(tree.progress.leaves)
    expect(tree.goals[0]!.rollup.output?.length).toBeGreaterThan(50)
    await waitFor(
      () => new Set(peers.map(fingerprint)).size === 1,
      10_000,
      'every peer to derive the same tree',
    )

    const dataDir = mkdtempSync(join(tmpdir(), 'murm-runtime-'))
    const stored = await peer(relay.multiaddrs, 'observer', ROOM, dataDir)
    await waitFor(
      () => stored.tree().goals[0]?.status === 'done',
      10_000,
      'the late observer to catch up',
    )
    // counted once stopped: a record still arriving (a late vote) is stored too
    await stored.stop()
    const held = stored.records().length
    // restarted on its stored records, it holds the whole plan before any link is up
    const late = await peer(relay.multiaddrs, 'observer', ROOM, dataDir)
    expect(late.records().length).toBe(held)
    await waitFor(() => late.tree().goals[0]?.status === 'done', 10_000, 'the restored plan')
    // it stopped once the root was done; what came after (a late vote) comes through sync
    await waitFor(
      () => fingerprint(late) === fingerprint(observer),
      10_000,
      'the restored observer to derive the same tree',
    )
    expect(observer.exportPlan(goal, 'markdown')).toContain('# Plan a weekend trip to Kyoto')

    // one observer archives the finished goal: it drops it, exported first
    const all = observer.records().length
    const archived = await observer.archiveFinished()
    expect(archived).toMatchObject({ goals: 1, records: all })
    expect(JSON.parse(archived.json!).records.length).toBe(all)
    await waitFor(() => observer.tree().goals.length === 0, 5_000, 'the goal to leave the tree')
    expect(observer.records()).toEqual([])
    // peers that hold it still give it to a newcomer, and sync brings nothing back to the archiver
    const newcomer = await peer(relay.multiaddrs, 'observer')
    await waitFor(() => newcomer.tree().goals[0]?.status === 'done', 15_000, 'the newcomer')
    await waitFor(() => linked(newcomer) >= roles.length + 1, 15_000, 'the newcomer to link')
    await new Promise((r) => setTimeout(r, 1_000))
    expect(observer.records()).toEqual([])
    expect(fingerprint(newcomer)).toBe(fingerprint(late))
  }, 150_000)

  it('an intruder that knows the room id (as the relay does) but not the secret reads nothing and adds nothing', async () => {
    const relay = await createRelay({
      port: 0,
      privateKey: await generateKeyPair('Ed25519'),
      logger: silentLogger,
    })
    running.push(relay)
    const room = deriveRoomKey('guarded', newRoomSecret())
    // the relay's view: the room id, and a key of its own making
    const intruderKey: RoomKey = {
      ...room,
      secret: newRoomSecret(),
      recordKey: new Uint8Array(32).fill(7),
    }
    const roles: Role[] = ['decomposer', 'scorer', 'scorer', 'executor', 'observer']
    const peers = await Promise.all(roles.map((role) => peer(relay.multiaddrs, role, room)))
    const intruder = await peer(relay.multiaddrs, 'decomposer', intruderKey)
    const observer = peers[peers.length - 1]!
    await waitFor(() => linkedTo(observer) >= roles.length - 1, 30_000, 'the honest mesh')

    await intruder.submitGoal('Spend everyone’s tokens on this', 2)
    const goal = await peers[0]!.submitGoal('Plan a weekend trip to Kyoto', 2)
    await waitFor(() => observer.tree().goals[0]?.status === 'done', 60_000, 'the plan to finish')

    for (const p of peers) {
      expect(p.tree().goals.map((g) => g.id)).toEqual([goal])
      expect(p.records().some((r) => r.from === intruder.peerId)).toBe(false)
    }
    // the intruder heard (and could open) nothing of the plan
    expect(intruder.records().every((r) => r.from === intruder.peerId)).toBe(true)
    expect(intruder.tree().goals.every((g) => g.text !== 'Plan a weekend trip to Kyoto')).toBe(true)
  }, 120_000)
})
