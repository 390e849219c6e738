/**
 * The ignored-steering log line (steering-log.ts) follows the plan's rule:
 * with the room's owner known, a steer from another PeerId of the goal
 * author's member is not ignored; another member's is.
 */
import { describe, expect, it } from 'vitest'
import { PlanState } from '../plan/state'
import { deriveMemberKey } from '../protocol/member-key'
import { newAdmit, newBind, newGoal, newSteer, type PlanRecord } from '../protocol/records'
import { stableRoomId } from '../protocol/room-key'
import { testConfig } from './leaf.test-support'
import { createPeer } from './peer'
import { ignoredSteering } from './steering-log'

const key = (n: number) => deriveMemberKey(Uint8Array.from({ length: 16 }, (_, i) => n * 16 + i))
const OWNER = key(1)
const BOB = key(2)
const ROOM = stableRoomId('trip', OWNER.id)
const peer = (name: string) => `12D3KooW${name.padEnd(44, 'x')}`
const [TAB1, TAB2, BOB_TAB, ME] = [peer('Tab1'), peer('Tab2'), peer('Bob'), peer('Me')]
const T0 = 1_800_000_000_000

function observerWith(records: readonly PlanRecord[], owner: string | undefined) {
  const plan = new PlanState()
  for (const record of records) plan.add(record)
  const config = { ...testConfig(ME, 'observer'), room: ROOM, ...(owner ? { owner } : {}) }
  return createPeer(config, T0, plan)
}

describe('ignoredSteering', () => {
  const goal = newGoal(ROOM, TAB1, 'plan a trip', T0, 2)
  const records: PlanRecord[] = [
    newBind(ROOM, TAB1, OWNER),
    newBind(ROOM, TAB2, OWNER),
    newAdmit(ROOM, TAB1, { member: BOB.id, box: BOB.box, name: 'Bob', coOwner: false }, T0),
    newBind(ROOM, BOB_TAB, BOB),
    goal,
  ]
  const fromTab2 = newSteer(ROOM, TAB2, goal.id, true, 'none', T0 + 1)
  const fromBob = newSteer(ROOM, BOB_TAB, goal.id, true, 'none', T0 + 1)

  it('with a membership: the author’s other tab steers; another member is ignored', () => {
    const peer = observerWith(records, OWNER.id)
    expect(ignoredSteering(peer, fromTab2)).toBeNull()
    expect(ignoredSteering(peer, fromBob)).toEqual({
      type: 'steering-ignored',
      kind: 'steer',
      from: BOB_TAB,
    })
  })

  it('without one (no owner known): only the very PeerId steers', () => {
    const peer = observerWith(records, undefined)
    expect(ignoredSteering(peer, fromTab2)).toMatchObject({ type: 'steering-ignored' })
  })
})
