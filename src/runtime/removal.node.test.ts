/**
 * Issue 55's attack, on real peers (a real relay, Node peers, the real role
 * core on the offline model): Rem, a member, is removed; it then writes
 * goals, and a claim and a result for a finished leaf, sealed with its old
 * epoch's key and offered on that epoch; Poster, whose link was made before
 * the rekey, joins only now on that old epoch, takes Rem's records there,
 * hears of the rekey, moves on and syncs them into the room. No honest peer
 * may spend a model call on Rem's new goals, none may show them, and the
 * honest plan must stay as it was while a new goal still finishes.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { afterEach, describe, expect, it } from 'vitest'
import { createRelay } from '../../relay/relay'
import { loadOrCreateKeyFile } from '../net/identity.node'
import { silentLogger } from '../net/log'
import { createSwarmNode } from '../net/node.node'
import { encodeRecord } from '../protocol/codec'
import { deriveMemberKey, newMemberSeed } from '../protocol/member-key'
import { newGoal, stamp, type PlanRecord, type ResultRecord } from '../protocol/records'
import { deriveRoomKey, newRoomSecret, stableRoomId, type RoomKey } from '../protocol/room-key'
import type { GoalView } from '../plan/tree'
import { memberPeer, waitFor } from './member-peers.test-support'
import { memoryPersistence } from './persist'
import { filePersistence } from './persist.node'
import { createRoomNode } from './room-node'
import { PlanStore } from './store'
import type { PeerRuntime, Role } from './types'

const running: Array<{ stop(): Promise<void> }> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()))
})

const peer = (
  relays: string[],
  role: Role,
  room: RoomKey,
  owner: string,
  seed: Uint8Array,
  dataDir?: string,
) => memberPeer(running, relays, role, room, owner, seed, dataDir)

const rootOf = (p: PeerRuntime, id: string) => p.tree().goals.find((g) => g.id === id)
/** What a finished goal is: its status and each leaf's output and who wrote it. */
const snapshot = (goal: GoalView | undefined) =>
  goal && {
    status: goal.status,
    output: goal.rollup.output,
    leaves: goal.slots.map((s) => [s.leaf?.output, s.leaf?.resultBy]),
  }

async function newRelay() {
  const relay = await createRelay({
    port: 0,
    privateKey: await generateKeyPair('Ed25519'),
    logger: silentLogger,
  })
  running.push(relay)
  return relay
}

describe('a removed member stays out (issue 55)', () => {
  it('its goals and results, carried in from its old epoch by a late joiner, get no work and change nothing', async () => {
    const relay = await newRelay()
    const relays = relay.multiaddrs
    // where Rem waits alone on its old epoch (Poster meets nobody else there at first)
    const side = await newRelay()
    const epoch0 = deriveRoomKey('removal-test', newRoomSecret())
    const ownerSeed = newMemberSeed()
    const owner = deriveMemberKey(ownerSeed).id
    const stable = stableRoomId(epoch0.name, owner)
    const o = await peer(relays, 'decomposer', epoch0, owner, ownerSeed)
    await waitFor(() => o.members()?.members.length === 1, 20_000, 'owner admitted')
    const invited = {
      s1: await o.invitePerson('Scorer one'),
      s2: await o.invitePerson('Scorer two'),
      ex: await o.invitePerson('Executor'),
      rem: await o.invitePerson('Rem'),
      // a link made before the rekey, opened only after it
      poster: await o.invitePerson('Poster'),
    }
    const remDir = mkdtempSync(join(tmpdir(), 'removal-rem-'))
    const s1 = await peer(relays, 'scorer', epoch0, owner, invited.s1.seed)
    const s2 = await peer(relays, 'scorer', epoch0, owner, invited.s2.seed)
    const rem = await peer(relays, 'executor', epoch0, owner, invited.rem.seed, remDir)
    const joined = (p: PeerRuntime) => p.members()!.members.filter((m) => m.joined).length
    await waitFor(() => [o, s1, s2, rem].every((p) => joined(p) === 4), 30_000, 'everyone joined')

    // a goal the room finishes before the removal, every leaf of it by Rem
    const first = await o.submitGoal('Plan a garden party', 1)
    await waitFor(
      () => [o, s1, s2, rem].every((p) => rootOf(p, first)?.status === 'done'),
      60_000,
      'the first goal done everywhere',
    )
    const before = snapshot(rootOf(o, first))
    expect(before!.leaves.every(([, by]) => by === rem.peerId)).toBe(true)
    const ex = await peer(relays, 'executor', epoch0, owner, invited.ex.seed)
    const honest = [o, s1, s2, ex]
    await waitFor(() => honest.every((p) => joined(p) === 5), 30_000, 'the executor joined')

    await o.removeMember(invited.rem.member)
    await waitFor(() => rem.members()?.removed?.reason === 'remove', 20_000, 'Rem told')
    await waitFor(() => honest.every((p) => p.roomKey().id !== epoch0.id), 20_000, 'epoch 1')
    await rem.stop()
    running.splice(running.indexOf(rem), 1)

    // Rem, on its old epoch with its old key and everything it held, writes on
    const remKey = await loadOrCreateKeyFile(join(remDir, 'identity.key'))
    const remPeer = rem.peerId
    const store = new PlanStore({
      room: stable,
      persistence: memoryPersistence(),
      onRecord: () => {},
    })
    for (const bytes of await filePersistence(join(remDir, `records-${stable}.bin`)).load())
      await store.add(bytes, 'storage')
    // it keeps the rekey that removed it to itself
    await store.archive(
      store
        .records()
        .filter((r) => r.kind === 'rekey')
        .map((r) => r.id),
    )
    const signer = { peerId: remPeer, sign: (data: Uint8Array) => remKey.sign(data) }
    const forged: PlanRecord[] = [
      newGoal(stable, remPeer, 'Mine bitcoin with everyone’s keys', Date.now(), 2),
      newGoal(stable, remPeer, 'Write me a novel, a long one', Date.now() + 1, 2),
    ]
    // a second result for a leaf it did, whose lower id would replace its first (tasks.ts)
    const leaf = rootOf(o, first)!.slots[0]!.leaf!
    const done = store
      .records()
      .find((r): r is ResultRecord => r.kind === 'result' && r.task === leaf.id)!
    for (let n = 0; ; n++) {
      const result = stamp<ResultRecord>({
        kind: 'result',
        room: stable,
        from: remPeer,
        task: leaf.id,
        epoch: done.epoch,
        output: `Rem was here (${n})`,
        usage: {
          provider: 'offline',
          model: 'offline-v1',
          inputTokens: 0,
          outputTokens: 0,
          offline: true,
        },
      })
      if (result.id < done.id) {
        forged.push(result)
        break
      }
    }
    for (const record of forged) store.addVerified(record, await encodeRecord(record, signer))
    const old = await createRoomNode({
      key: { id: epoch0.id, recordKey: epoch0.recordKey, records: stable },
      relays: [...relays, ...side.multiaddrs],
      privateKey: remKey,
      createNode: (init) => createSwarmNode({ ...init, rtcBindAddress: '127.0.0.1' }),
      store,
      netLogger: silentLogger,
      log: () => {},
    })
    running.push(old)

    // Poster opens its link from before the rekey: epoch 0, where it meets only Rem and
    // takes its records (watching only: what it would spend before the rekey reaches it is
    // the window PROTOCOL.md §0.1 names)
    const posterDir = mkdtempSync(join(tmpdir(), 'removal-poster-'))
    const watching = await peer(
      side.multiaddrs,
      'observer',
      epoch0,
      owner,
      invited.poster.seed,
      posterDir,
    )
    await waitFor(
      () => forged.every((f) => watching.records().some((r) => r.id === f.id)),
      30_000,
      'Poster took Rem’s records',
    )
    expect(watching.roomKey().id).toBe(epoch0.id)
    await watching.stop()
    running.splice(running.indexOf(watching), 1)
    // then it comes back to work, where the room's members forward the rekey on epoch 0
    const poster = await peer(relays, 'decomposer', epoch0, owner, invited.poster.seed, posterDir)
    await waitFor(() => poster.roomKey().id === o.roomKey().id, 30_000, 'Poster moved on')
    const everyone = [...honest, poster]
    const forgedIds = new Set(forged.map((r) => r.id))
    // the attack's path worked: Rem's records reached every honest store
    await waitFor(
      () => everyone.every((p) => forged.every((f) => p.records().some((r) => r.id === f.id))),
      30_000,
      'Rem’s records carried into the room',
    )

    // the room goes on: a new goal finishes everywhere (and leaves time for any work on Rem's)
    const second = await o.submitGoal('Plan a picnic', 1)
    await waitFor(
      () => everyone.every((p) => rootOf(p, second)?.status === 'done'),
      60_000,
      'the second goal done everywhere',
    )
    for (const p of everyone) {
      const calls = p.calls().filter((c) => c.goal !== null && forgedIds.has(c.goal))
      expect(calls, `model calls for Rem's goals at ${p.peerId}`).toEqual([])
      expect(
        p
          .tree()
          .goals.map((g) => g.id)
          .filter((id) => forgedIds.has(id)),
      ).toEqual([])
      expect(snapshot(rootOf(p, first))).toEqual(before)
    }
  }, 240_000)

  it('a reset person’s tab, bound to their new member, keeps its goal going', async () => {
    const relay = await newRelay()
    const relays = relay.multiaddrs
    const epoch0 = deriveRoomKey('reset-test', newRoomSecret())
    const ownerSeed = newMemberSeed()
    const owner = deriveMemberKey(ownerSeed).id
    const o = await peer(relays, 'decomposer', epoch0, owner, ownerSeed)
    await waitFor(() => o.members()?.members.length === 1, 20_000, 'owner admitted')
    const s1 = await peer(relays, 'scorer', epoch0, owner, (await o.invitePerson('S1')).seed)
    const s2 = await peer(relays, 'scorer', epoch0, owner, (await o.invitePerson('S2')).seed)
    const carol = await o.invitePerson('Carol')
    const tabDir = mkdtempSync(join(tmpdir(), 'reset-carol-'))
    const tab = await peer(relays, 'observer', epoch0, owner, carol.seed, tabDir)
    const team = [o, s1, s2]
    const joined = (p: PeerRuntime) => p.members()!.members.filter((m) => m.joined).length
    await waitFor(() => [...team, tab].every((p) => joined(p) === 4), 30_000, 'everyone joined')
    // no executor yet: the goal is split and waits for one
    const goal = await tab.submitGoal('Plan a book club evening', 1)
    await waitFor(
      () => team.every((p) => rootOf(p, goal)?.status === 'accepted'),
      60_000,
      'the goal split',
    )

    const carol2 = await o.resetInvite(carol.member)
    await waitFor(() => tab.members()?.removed?.reason === 'reset', 20_000, 'the old link told')
    await tab.stop()
    running.splice(running.indexOf(tab), 1)
    // until her tab binds again, her goal stops: its author is out
    await waitFor(
      () => team.every((p) => rootOf(p, goal)?.authorRemoved === true),
      20_000,
      'the goal stopped',
    )
    // she opens her new link in the same tab (the same PeerId): it binds to her new member
    const again = await peer(relays, 'observer', o.roomKey(), owner, carol2.seed, tabDir)
    expect(again.peerId).toBe(tab.peerId)
    await waitFor(
      () => team.every((p) => rootOf(p, goal)?.status === 'accepted'),
      30_000,
      'the goal going again',
    )
    const ex = await peer(relays, 'executor', o.roomKey(), owner, (await o.invitePerson('Ex')).seed)
    await waitFor(
      () => [...team, ex, again].every((p) => rootOf(p, goal)?.status === 'done'),
      60_000,
      'the goal done',
    )
  }, 180_000)
})
