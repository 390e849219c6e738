/**
 * Members over real libp2p (a real relay, Node peers, the real role core on
 * the offline model): an owner invites people, every peer binds, resetting
 * one person's link moves the others to a new epoch (new transport id), the
 * old link hears nothing new and is told it was reset, and a member that
 * was offline at the reset catches up through a remaining member's
 * forwarding node.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { afterEach, describe, expect, it } from 'vitest'
import { createRelay } from '../../relay/relay'
import { silentLogger } from '../net/log'
import { deriveMemberKey, newMemberSeed } from '../protocol/member-key'
import { deriveRoomKey, newRoomSecret, type RoomKey } from '../protocol/room-key'
import { memberPeer, waitFor } from './member-peers.test-support'
import { removedSentence } from './members-view'
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

const goalTexts = (p: PeerRuntime) =>
  p.records().flatMap((r) => (r.kind === 'goal' ? [r.text] : []))

describe('members over real libp2p', () => {
  it('a reset moves the members to a new epoch; the old link hears nothing new and is told; an offline member catches up', async () => {
    const relay = await createRelay({
      port: 0,
      privateKey: await generateKeyPair('Ed25519'),
      logger: silentLogger,
    })
    running.push(relay)
    const relays = relay.multiaddrs
    const room = deriveRoomKey('members-test', newRoomSecret())
    const ownerSeed = newMemberSeed()
    const owner = deriveMemberKey(ownerSeed).id
    const o = await peer(relays, 'decomposer', room, owner, ownerSeed)
    await waitFor(
      () => o.members()?.members.some((m) => m.name === 'Owner') ?? false,
      20_000,
      'owner admitted',
    )
    const bob = await o.invitePerson('Bob')
    const carol = await o.invitePerson()
    expect(carol.name).toBe('Guest 1')
    const dave = await o.invitePerson('Dave')
    const b = await peer(relays, 'scorer', room, owner, bob.seed)
    const c = await peer(relays, 'executor', room, owner, carol.seed)
    const daveDir = mkdtempSync(join(tmpdir(), 'members-dave-'))
    const d = await peer(relays, 'observer', room, owner, dave.seed, daveDir)
    const all = [o, b, c, d]
    // every member sees every other as joined (its bind arrived)
    await waitFor(
      () => all.every((p) => (p.members()?.members.filter((m) => m.joined).length ?? 0) === 4),
      30_000,
      'everyone joined',
    )
    expect(b.members()!.manage).toBe(false)
    expect(o.members()!.manage).toBe(true)
    await expect(b.invitePerson('Eve')).rejects.toThrow(/only the room's owners/)

    // Dave goes offline; the owner resets Carol's link
    await d.stop()
    running.splice(running.indexOf(d), 1)
    const epoch0 = o.roomKey().id
    const carol2 = await o.resetInvite(carol.member)
    expect(carol2.name).toBe('Guest 1')
    await waitFor(() => o.roomKey().id !== epoch0 && b.roomKey().id !== epoch0, 20_000, 'epoch 1')
    expect(b.roomKey().id).toBe(o.roomKey().id)
    await waitFor(() => c.members()?.removed !== null, 20_000, 'carol told')
    const told = c.members()!.removed!
    expect(told.reason).toBe('reset')
    expect(removedSentence('members-test', told, () => 'T')).toBe(
      'This invite link was reset by Owner at T. Ask them for a new link.',
    )

    // Carol's new link (the new epoch's key) joins; a goal after the reset reaches members only
    const c2 = await peer(relays, 'executor', o.roomKey(), owner, carol2.seed)
    await waitFor(
      () => (c2.members()?.members.filter((m) => m.joined && !m.removed).length ?? 0) >= 3,
      30_000,
      'carol again',
    )
    // the old link, opened afresh: it learns of the reset through a forwarding node
    const old = await peer(relays, 'observer', room, owner, carol.seed)
    await waitFor(() => old.members()?.removed?.reason === 'reset', 30_000, 'old link told')
    await o.submitGoal('After the reset: plan a picnic')
    await waitFor(
      () => goalTexts(c2).includes('After the reset: plan a picnic'),
      20_000,
      'goal at c2',
    )
    expect(goalTexts(b)).toContain('After the reset: plan a picnic')

    // Dave comes back with his old data (epoch 0's key): a forwarder brings the rekey, he moves on
    const d2 = await peer(relays, 'observer', room, owner, dave.seed, daveDir)
    await waitFor(() => d2.roomKey().id === o.roomKey().id, 30_000, 'dave moved')
    await waitFor(
      () => goalTexts(d2).includes('After the reset: plan a picnic'),
      30_000,
      'goal at dave',
    )
    expect(goalTexts(old)).not.toContain('After the reset: plan a picnic')
    expect(goalTexts(c)).not.toContain('After the reset: plan a picnic')
  }, 180_000)
})
