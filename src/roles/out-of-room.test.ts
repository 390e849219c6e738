/**
 * A peer whose own records count for nothing takes no work (roles/warmth.ts
 * isWarm, PROTOCOL.md §0.1, §5.4): before its member's admit reaches it, and
 * once its member is removed. Its claims would not count even in its own
 * view, so it would take the same task again and again on its person's key.
 */
import { describe, expect, it } from 'vitest'
import { WARMUP_MS } from '../protocol/rules'
import { deriveMemberKey, sealEpochSecret } from '../protocol/member-key'
import { newAdmit, newBind, newGoal, newRekey, type PlanRecord } from '../protocol/records'
import { createPeer, step } from './index'

const key = (n: number) => deriveMemberKey(Uint8Array.from({ length: 16 }, (_, i) => n * 16 + i))
const OWNER = key(1)
const BOB = key(2)
const ROOM = 'r'
const peer = (name: string) => `12D3KooW${name.padEnd(44, 'x')}`
const OWNER_PEER = peer('Owner')
const BOB_PEER = peer('Bob')
const T0 = 1_800_000_000_000

describe('a peer out of the room takes no work', () => {
  const config = {
    peerId: BOB_PEER,
    room: ROOM,
    role: 'decomposer' as const,
    capabilities: [],
    capacity: 2,
    model: 'sim-1',
    offline: true,
    owner: OWNER.id,
  }
  const proposes = (fx: ReturnType<typeof step>) =>
    fx.startLlm.some((request) => request.task.kind === 'decompose')
  const feed = (p: ReturnType<typeof createPeer>, records: PlanRecord[], at: number) =>
    step(
      p,
      records.map((record) => ({ type: 'record' as const, record })),
      at,
    )

  it('not admitted yet: nothing; admitted: it works; removed: nothing again', () => {
    const p = createPeer(config, 0)
    const goal = newGoal(ROOM, OWNER_PEER, 'Plan a picnic', T0, 2)
    feed(p, [newBind(ROOM, OWNER_PEER, OWNER), newBind(ROOM, BOB_PEER, BOB), goal], 0)
    expect(proposes(step(p, { type: 'tick' }, WARMUP_MS))).toBe(false)
    const admit = newAdmit(
      ROOM,
      OWNER_PEER,
      { member: BOB.id, box: BOB.box, name: 'Bob', coOwner: false },
      T0,
    )
    expect(proposes(feed(p, [admit], 2 * WARMUP_MS))).toBe(true)

    const other = newGoal(ROOM, OWNER_PEER, 'Plan a party', T0 + 1, 2)
    const sealed = sealEpochSecret(ROOM, 1, new Uint8Array(16), [])
    const removal = newRekey(
      ROOM,
      OWNER_PEER,
      { epoch: 1, prev: null, removed: [BOB.id], reason: 'remove', ...sealed, kept: [] },
      T0 + 2,
    )
    feed(p, [removal], 3 * WARMUP_MS)
    expect(proposes(feed(p, [other], 4 * WARMUP_MS))).toBe(false)
    expect(proposes(step(p, { type: 'tick' }, 10 * WARMUP_MS))).toBe(false)
  })
})
