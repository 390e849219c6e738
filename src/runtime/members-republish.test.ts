/**
 * A member's bind goes out again every BIND_REPUBLISH_MS while its room is
 * awake, and not while it is quiet (sync carries it then; each republish was
 * two signatures here and a check on every peer: bench:idle).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { deriveMemberKey, newMemberSeed } from '../protocol/member-key'
import type { WireRecord } from '../protocol/records'
import { deriveRoomKey, newRoomSecret, stableRoomId } from '../protocol/room-key'
import { BIND_REPUBLISH_MS, RoomMembers } from './members'
import { memoryMembersPersistence } from './members-persist'

const ROOM = 'republish-test'

afterEach(() => vi.useRealTimers())

describe('RoomMembers.startRepublishing', () => {
  it('republishes the same bind while the room is awake, nothing while it is quiet', async () => {
    const seed = newMemberSeed()
    const owner = deriveMemberKey(seed).id
    const sent: WireRecord[] = []
    const members = new RoomMembers({
      room: ROOM,
      stable: stableRoomId(ROOM, owner),
      owner,
      me: deriveMemberKey(seed),
      peerId: 'peer-0',
      linkKey: deriveRoomKey(ROOM, newRoomSecret()),
      persistence: memoryMembersPersistence(),
      publish: async (out) => void sent.push(...out),
      records: () => [],
      heldBy: async () => [],
      switchTo: async () => {},
      forward: () => {},
      onRemoved: () => {},
      onChange: () => {},
      now: () => Date.now(),
      log: () => {},
    })
    await members.start()
    vi.useFakeTimers()
    let quiet = false
    members.startRepublishing(() => quiet)
    vi.advanceTimersByTime(2 * BIND_REPUBLISH_MS)
    expect(sent.map((r) => r.kind)).toEqual(['bind', 'bind'])
    expect(sent[1]).toEqual(members.bind())
    quiet = true
    vi.advanceTimersByTime(5 * BIND_REPUBLISH_MS)
    expect(sent).toHaveLength(2)
    quiet = false
    vi.advanceTimersByTime(BIND_REPUBLISH_MS)
    expect(sent).toHaveLength(3)
    members.stop()
  })
})
