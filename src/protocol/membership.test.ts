import { describe, expect, it } from 'vitest'
import { createRng } from '../sim/rng'
import { deriveMemberKey, openEpochSecret, sealEpochSecret, type MemberKey } from './member-key'
import {
  activeMember,
  deriveMembership,
  nextRekey,
  peersOf,
  rekeyRecipients,
  type Membership,
} from './membership'
import { newAdmit, newBind, newRekey, type WireRecord } from './records'
import { stableRoomId } from './room-key'

const member = (n: number) => deriveMemberKey(Uint8Array.from({ length: 16 }, (_, i) => n * 16 + i))
const OWNER = member(1)
const CO = member(2)
const ALICE = member(3)
const BOB = member(4)
const EVE = member(5)
const ROOM = stableRoomId('trip', OWNER.id)
const peer = (name: string) => `12D3KooW${name.padEnd(44, 'x')}`
const P = {
  owner: peer('Owner'),
  co: peer('Co'),
  alice1: peer('Alice1'),
  alice2: peer('Alice2'),
  bob: peer('Bob'),
  eve: peer('Eve'),
}
const T0 = 1_800_000_000_000
const SECRET = Uint8Array.from({ length: 16 }, (_, i) => 100 + i)

const bind = (from: string, key: MemberKey) => newBind(ROOM, from, key)
const admit = (from: string, key: MemberKey, name: string, coOwner = false, at = T0) =>
  newAdmit(ROOM, from, { member: key.id, box: key.box, name, coOwner }, at)

/** A rekey to `epoch` after `prev`, removing `removed`, sealed to `to`. */
function rekey(
  from: string,
  epoch: number,
  prev: string | null,
  removed: MemberKey[],
  to: MemberKey[],
  at = T0 + epoch,
  reason: 'remove' | 'reset' = 'remove',
  kept: string[] = [],
) {
  const sealed = sealEpochSecret(
    ROOM,
    epoch,
    SECRET,
    to.map((m) => ({ member: m.id, box: m.box })),
  )
  return newRekey(
    ROOM,
    from,
    { epoch, prev, removed: removed.map((m) => m.id), reason, ...sealed, kept },
    at,
  )
}

/** A record by `from` (its id is no removal's to keep). */
const by = (from: string) => ({ id: 'f'.repeat(32), from })

/** The room every test starts from: owner, a co-owner, Alice (two tabs) and Bob. */
function room(): WireRecord[] {
  return [
    bind(P.owner, OWNER),
    admit(P.owner, OWNER, 'Olga'),
    admit(P.owner, CO, 'Carl', true),
    bind(P.co, CO),
    admit(P.co, ALICE, 'Alice'),
    bind(P.alice1, ALICE),
    bind(P.alice2, ALICE),
    admit(P.owner, BOB, 'Bob'),
    bind(P.bob, BOB),
  ]
}

const of = (records: Iterable<WireRecord>) => deriveMembership(ROOM, OWNER.id, records)

/** Everything a membership says, as plain data, to compare two. */
function summary(m: Membership) {
  return JSON.stringify({
    members: [...m.members.values()].sort((a, b) => (a.id < b.id ? -1 : 1)),
    removed: [...m.removed.values()].sort((a, b) => (a.member < b.member ? -1 : 1)),
    owners: [...m.owners].sort(),
    peers: [...m.peers].sort(),
    epoch: m.epoch,
    rekeys: m.rekeys.map((r) => r.id),
  })
}

describe('membership (pure, from bind/admit/rekey records)', () => {
  it('owners, members with their names and box keys, and PeerId → member', () => {
    const m = of(room())
    expect([...m.owners].sort()).toEqual([OWNER.id, CO.id].sort())
    expect(m.members.get(OWNER.id)).toMatchObject({ name: 'Olga', box: OWNER.box, rootOwner: true })
    expect(m.members.get(ALICE.id)).toMatchObject({
      name: 'Alice',
      admittedBy: CO.id,
      coOwner: false,
    })
    expect(m.memberOf(P.alice1)).toBe(ALICE.id)
    expect(m.memberOf(P.alice2)).toBe(ALICE.id)
    expect(peersOf(m, ALICE.id).sort()).toEqual([P.alice1, P.alice2].sort())
    expect(m.epoch).toBe(0)
  })

  it('an unbound PeerId and one bound to a member nobody admitted count for nothing', () => {
    const m = of([...room(), bind(P.eve, EVE)])
    expect(m.counts(by(P.eve))).toBe(false)
    expect(m.counts(by(peer('Nobody')))).toBe(false)
    expect(m.counts(by(P.bob))).toBe(true)
  })

  it('a bind whose signature is another room’s or another PeerId’s binds nothing', () => {
    const elsewhere = newBind(stableRoomId('other', OWNER.id), P.eve, ALICE)
    const stolen = { ...bind(P.alice1, ALICE), from: P.eve }
    const m = of([...room(), { ...elsewhere, room: ROOM }, stolen])
    expect(m.counts(by(P.eve))).toBe(false)
  })

  it('a non-owner’s admit and rekey are ignored; a co-owner’s work', () => {
    const byAlice = [
      admit(P.alice1, EVE, 'Eve'),
      bind(P.eve, EVE),
      rekey(P.alice1, 1, null, [BOB], [OWNER, CO, ALICE]),
    ]
    const m = of([...room(), ...byAlice])
    expect(m.members.has(EVE.id)).toBe(false)
    expect(m.counts(by(P.eve))).toBe(false)
    expect(m.epoch).toBe(0)
    expect(m.isActive(BOB.id)).toBe(true)

    const history = { id: 'a'.repeat(32), from: P.bob }
    const bobsBind = bind(P.bob, BOB)
    const byCo = rekey(P.co, 1, null, [BOB], [OWNER, CO, ALICE], T0 + 1, 'remove', [
      bobsBind.id,
      history.id,
    ])
    const after = of([...room(), ...byAlice, byCo])
    expect(after.epoch).toBe(1)
    expect(after.removed.get(BOB.id)).toMatchObject({ by: CO.id, reason: 'remove', epoch: 1 })
    expect(after.isActive(BOB.id)).toBe(false)
    // a removed member's records that its removal keeps count: history; nothing else of it does
    expect(after.frozen.get(P.bob)).toBe(1)
    expect(after.counts(history)).toBe(true)
    expect(after.counts(by(P.bob))).toBe(false)
    expect(after.memberOf(P.bob)).toBe(BOB.id)
    // but it is not in now
    expect(activeMember(after, P.bob)).toBeUndefined()
    expect(activeMember(after, P.alice1)).toBe(ALICE.id)
  })

  it('a member is as its earliest counted admit says, even one that counts through a later co-owner', () => {
    const records = [
      bind(P.owner, OWNER),
      bind(P.co, CO),
      admit(P.co, ALICE, 'Alice by Carl', false, T0),
      admit(P.owner, ALICE, 'Alice by Olga', false, T0 + 5),
      admit(P.owner, CO, 'Carl', true, T0 + 10),
    ]
    for (const order of [records, [...records].reverse()]) {
      expect(of(order).members.get(ALICE.id)).toMatchObject({
        name: 'Alice by Carl',
        admittedBy: CO.id,
        admittedAt: T0,
      })
    }
  })

  it('an admit of the root owner counts only from the root owner’s own PeerIds', () => {
    const forged = newAdmit(
      ROOM,
      P.co,
      { member: OWNER.id, box: EVE.box, name: 'Fake', coOwner: false },
      T0 - 5,
    )
    const m = of([...room(), forged])
    expect(m.members.get(OWNER.id)).toMatchObject({ name: 'Olga', box: OWNER.box })
  })

  it('a rekey cannot remove the root owner, and a removed co-owner cannot rekey', () => {
    expect(of([...room(), rekey(P.co, 1, null, [OWNER], [CO, ALICE, BOB])]).epoch).toBe(0)
    // the remover keeps what it held of Carl: his bind and his admit of Alice
    const carls = [bind(P.co, CO).id, admit(P.co, ALICE, 'Alice').id]
    const first = rekey(P.owner, 1, null, [CO], [OWNER, ALICE, BOB], T0 + 1, 'remove', carls)
    const late = rekey(P.co, 2, first.id, [ALICE], [CO, BOB])
    const m = of([...room(), first, late])
    expect(m.epoch).toBe(1)
    expect(m.owners.has(CO.id)).toBe(false)
    expect(m.isActive(ALICE.id)).toBe(true)
    // kept nothing of Carl: his admit of Alice counts no more (nor Alice's membership)
    expect(
      of([...room(), rekey(P.owner, 1, null, [CO], [OWNER, ALICE, BOB])]).members.has(ALICE.id),
    ).toBe(false)
  })

  it('two rekeys for one epoch: the lowest record id wins, and only its successors follow', () => {
    const a = rekey(P.owner, 1, null, [BOB], [OWNER, CO, ALICE], T0 + 1)
    const b = rekey(P.co, 1, null, [ALICE], [OWNER, CO, BOB], T0 + 2)
    const [winner, loser] = a.id < b.id ? [a, b] : [b, a]
    // (a successor removing the loser's author would refute it: membership-removal.test.ts)
    const afterLoser = rekey(P.owner, 2, loser.id, [EVE], [OWNER])
    const records = [...room(), a, b, afterLoser]
    const m = of(records)
    expect(m.epoch).toBe(1)
    expect(m.rekeys.map((r) => r.id)).toEqual([winner.id])
    expect(m.isActive(winner === a ? BOB.id : ALICE.id)).toBe(false)
    expect(m.isActive(winner === a ? ALICE.id : BOB.id)).toBe(true)
    expect(m.isActive(CO.id)).toBe(true)
    expect(nextRekey(m)).toEqual({ epoch: 2, prev: winner.id })
    // one that follows the winner is taken
    const next = rekey(P.owner, 2, winner.id, [CO], [OWNER])
    expect(of([...records, next]).epoch).toBe(2)
  })

  it('is the same whatever order the records come in (seeded shuffles)', () => {
    const a = rekey(P.owner, 1, null, [BOB], [OWNER, CO, ALICE], T0 + 1)
    const b = rekey(P.co, 1, null, [ALICE], [OWNER, CO, BOB], T0 + 2)
    const winner = a.id < b.id ? a : b
    const records = [
      ...room(),
      a,
      b,
      rekey(P.owner, 2, winner.id, [CO], [OWNER]),
      admit(P.co, EVE, 'Eve', true),
      bind(P.eve, EVE),
      admit(P.eve, member(6), 'Sixth'),
      bind(P.eve, ALICE),
    ]
    const expected = summary(of(records))
    for (let seed = 1; seed <= 200; seed++) {
      const rng = createRng(seed)
      const order = [...records]
      for (let i = order.length - 1; i > 0; i--) {
        const j = rng.int(0, i)
        ;[order[i], order[j]] = [order[j]!, order[i]!]
      }
      expect(summary(of(order)), `seed ${seed}`).toBe(expected)
    }
  })

  it('a PeerId bound to two members acts for the one not removed', () => {
    const removeAlice = rekey(P.owner, 1, null, [ALICE], [OWNER, CO, BOB])
    const m = of([...room(), bind(P.alice1, BOB), removeAlice])
    expect(m.memberOf(P.alice1)).toBe(BOB.id)
    // Alice's other tab acts for her, removed, if her removal keeps its bind; else for nobody
    expect(m.memberOf(P.alice2)).toBeUndefined()
    const keeping = rekey(P.owner, 1, null, [ALICE], [OWNER, CO, BOB], T0 + 1, 'remove', [
      bind(P.alice2, ALICE).id,
    ])
    expect(of([...room(), bind(P.alice1, BOB), keeping]).memberOf(P.alice2)).toBe(ALICE.id)
  })

  it('a removal’s boxes open for each remaining member and not for the removed one', () => {
    const before = of(room())
    const to = rekeyRecipients(before, [BOB.id])
    expect(to.map((r) => r.member).sort()).toEqual([OWNER.id, CO.id, ALICE.id].sort())
    const { epoch, prev } = nextRekey(before)
    const sealed = sealEpochSecret(ROOM, epoch, SECRET, to)
    const record = newRekey(
      ROOM,
      P.owner,
      { epoch, prev, removed: [BOB.id], reason: 'remove', ...sealed, kept: [] },
      T0,
    )
    const after = of([...room(), record])
    const winning = after.rekeys[0]!
    for (const key of [OWNER, CO, ALICE])
      expect(openEpochSecret(key, ROOM, winning)).toEqual(SECRET)
    expect(openEpochSecret(BOB, ROOM, winning)).toBeNull()
    expect(after.removed.get(BOB.id)?.at).toBe(T0)
  })
})
