/**
 * Co-owners (issue 45), on the runtime's RoomMembers wired to one another in
 * memory (every record published reaches every peer, as gossip would): the
 * owner names a co-owner at invite time or later, and a co-owner's removal
 * and reset move the room on as the owner's do; a plain member's do not.
 * The network switch is recorded, not made (members.node.test.ts runs it
 * over real libp2p).
 */
import { describe, expect, it } from 'vitest'
import { deriveMemberKey, newMemberSeed } from '../protocol/member-key'
import type { PlanRecord, WireRecord } from '../protocol/records'
import { deriveRoomKey, newRoomSecret, stableRoomId, type RoomKey } from '../protocol/room-key'
import { NotOwnerError, RoomMembers } from './members'
import { memoryMembersPersistence } from './members-persist'
import { membersView, removedSentence } from './members-view'
import { removalRekey } from './members-rekey'

const ROOM = 'owners-test'

/** A room of RoomMembers that hear every record any of them publishes. */
function room() {
  const link = deriveRoomKey(ROOM, newRoomSecret())
  const ownerSeed = newMemberSeed()
  const owner = deriveMemberKey(ownerSeed).id
  const stable = stableRoomId(ROOM, owner)
  const records: PlanRecord[] = []
  const peers: Array<{ members: RoomMembers; keys: RoomKey[]; removed: boolean }> = []
  let clock = 1_000
  /** records to deliver just before `record` (a race another owner won) */
  let before: (record: PlanRecord) => PlanRecord[] = () => []
  const publish = async (out: WireRecord[]) => {
    for (const record of (out as PlanRecord[]).flatMap((r) => [...before(r), r])) {
      records.push(record)
      for (const p of peers) p.members.recordArrived(record)
    }
    await Promise.all(peers.map((p) => p.members.settle()))
  }
  async function join(seed: Uint8Array, key: RoomKey = link, ownName?: string, synced = true) {
    const peer = { members: null as unknown as RoomMembers, keys: [] as RoomKey[], removed: false }
    peer.members = new RoomMembers({
      room: ROOM,
      stable,
      owner,
      me: deriveMemberKey(seed),
      ...(ownName ? { ownName } : {}),
      peerId: `peer-${peers.length}`,
      linkKey: key,
      persistence: memoryMembersPersistence(),
      publish,
      records: () => records,
      heldBy: async (peers) => records.filter((r) => peers.has(r.from)),
      switchTo: async (next) => void peer.keys.push(next),
      forward: () => {},
      onRemoved: () => void (peer.removed = true),
      onChange: () => {},
      now: () => clock++,
      log: () => {},
    })
    peers.push(peer)
    await peer.members.start()
    await publish([peer.members.bind()])
    // the runtime calls joined() after the first sync (or alone, after a wait)
    if (synced) await peer.members.joined()
    return peer
  }
  return {
    join,
    ownerSeed,
    stable,
    records,
    race: (hook: typeof before) => void (before = hook),
  }
}

const view = (m: RoomMembers) =>
  membersView(m.membership(), m.me.id, { peerId: 'self', role: 'observer' }, [])

describe('co-owners', () => {
  it('a co-owner named at invite time removes a member, who reads the co-owner’s name', async () => {
    const r = room()
    const owner = await r.join(r.ownerSeed, undefined, 'Ada')
    const bobInvite = await owner.members.invite('Bob', true)
    const carolInvite = await owner.members.invite('Carol')
    const bob = await r.join(bobInvite.seed)
    const carol = await r.join(carolInvite.seed)
    expect(view(bob.members).manage).toBe(true)
    expect(view(carol.members).manage).toBe(false)
    // the root owner's own admit carries the name it was given
    expect(view(carol.members).members.find((m) => m.rootOwner)?.name).toBe('Ada')

    await bob.members.remove(carolInvite.member)
    expect(carol.removed).toBe(true)
    const told = view(carol.members).removed!
    expect(removedSentence(ROOM, told, () => 'T')).toBe(
      `You were removed from “${ROOM}” by Bob at T. Nothing new reaches this tab.`,
    )
    // the others moved to the new epoch; Carol did not
    expect(owner.keys).toHaveLength(1)
    expect(bob.keys.map((k) => k.id)).toEqual(owner.keys.map((k) => k.id))
    expect(carol.keys).toEqual([])
  })

  it('the owner makes an existing member a co-owner; its name stays; then it resets a link', async () => {
    const r = room()
    const owner = await r.join(r.ownerSeed)
    const bobInvite = await owner.members.invite('Bob')
    const daveInvite = await owner.members.invite('Dave')
    const bob = await r.join(bobInvite.seed)
    await r.join(daveInvite.seed)
    expect(view(bob.members).manage).toBe(false)
    await expect(bob.members.remove(daveInvite.member)).rejects.toThrow(NotOwnerError)
    await expect(bob.members.makeCoOwner(daveInvite.member)).rejects.toThrow(NotOwnerError)

    await owner.members.makeCoOwner(bobInvite.member)
    const bobSeen = view(owner.members).members.find((m) => m.id === bobInvite.member)!
    expect(bobSeen).toMatchObject({ name: 'Bob', coOwner: true })
    expect(view(bob.members).manage).toBe(true)
    // the owner's default name, as the others read it
    expect(view(bob.members).members.find((m) => m.rootOwner)?.name).toBe('Owner')

    const dave2 = await bob.members.reset(daveInvite.member)
    expect(dave2.name).toBe('Dave')
    expect(view(owner.members).members.find((m) => m.id === daveInvite.member)?.removed).toEqual(
      expect.objectContaining({ byName: 'Bob', reason: 'reset' }),
    )
    expect(owner.members.membership().isActive(dave2.member)).toBe(true)
    // a co-owner cannot remove the room's maker
    await expect(bob.members.remove(owner.members.me.id)).rejects.toThrow(NotOwnerError)
  })

  it('an owner whose rekey lost a race to a co-owner’s makes its removal again on top', async () => {
    const r = room()
    const owner = await r.join(r.ownerSeed)
    const bobInvite = await owner.members.invite('Bob', true)
    const carolInvite = await owner.members.invite('Carol')
    const daveInvite = await owner.members.invite('Dave')
    const bob = await r.join(bobInvite.seed)
    await r.join(carolInvite.seed)
    await r.join(daveInvite.seed)
    // as the owner's rekey removing Carol goes out, Bob's removing Dave, made on the same
    // chain and with a lower id, reaches everyone first
    r.race((record) => {
      if (record.kind !== 'rekey' || record.epoch !== 1) return []
      r.race(() => [])
      const m = bob.members.membership()
      for (let at = 0; ; at++) {
        const rival = removalRekey(m, 'peer-1', daveInvite.member, 'remove', [], at).record
        if (rival.id < record.id) return [rival]
      }
    })
    await owner.members.remove(carolInvite.member)
    await owner.members.settle()
    const m = owner.members.membership()
    expect(m.epoch).toBe(2)
    expect(m.rekeys[0]!.removed).toEqual([daveInvite.member])
    expect(m.rekeys[1]!.removed).toEqual([carolInvite.member])
    expect(bob.members.membership().isActive(carolInvite.member)).toBe(false)
  })

  it('the maker inviting before its first sync publishes its own admit (its name) first', async () => {
    const r = room()
    const owner = await r.join(r.ownerSeed, undefined, 'Ada', false)
    expect(owner.members.membership().members.get(owner.members.me.id)?.name).toBeNull()
    const bob = await owner.members.invite('Bob')
    const m = owner.members.membership()
    expect(m.members.get(owner.members.me.id)?.name).toBe('Ada')
    expect(m.members.get(bob.member)?.name).toBe('Bob')
  })
})
