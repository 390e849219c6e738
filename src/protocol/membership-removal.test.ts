/**
 * A removed member stays out (PROTOCOL.md §0.1, since version 8): what it
 * publishes after its removal counts for nothing, whichever way it comes,
 * and a removed co-owner can take nothing back (its admits, its rekeys).
 */
import { describe, expect, it } from 'vitest'
import { createRng } from '../sim/rng'
import { deriveMemberKey, sealEpochSecret, type MemberKey } from './member-key'
import { deriveMembership, type Membership } from './membership'
import { newAdmit, newBind, newGoal, newRekey, type WireRecord } from './records'
import { stableRoomId } from './room-key'

const member = (n: number) => deriveMemberKey(Uint8Array.from({ length: 16 }, (_, i) => n * 16 + i))
const OWNER = member(1)
const CO = member(2)
const ALICE = member(3)
const REM = member(4)
const PUPPET = member(5)
const ALICE_NEW = member(6)
const ROOM = stableRoomId('trip', OWNER.id)
const peer = (name: string) => `12D3KooW${name.padEnd(44, 'x')}`
const P = {
  owner: peer('Owner'),
  co: peer('Co'),
  alice: peer('Alice'),
  rem: peer('Rem'),
  rem2: peer('RemTwo'),
  puppet: peer('Puppet'),
}
const T0 = 1_800_000_000_000

const bind = (from: string, key: MemberKey) => newBind(ROOM, from, key)
const admit = (from: string, key: MemberKey, name: string, coOwner = false, at = T0) =>
  newAdmit(ROOM, from, { member: key.id, box: key.box, name, coOwner }, at)

function rekey(
  from: string,
  epoch: number,
  prev: string | null,
  removed: MemberKey[],
  kept: string[],
  at = T0 + epoch,
  reason: 'remove' | 'reset' = 'remove',
) {
  const sealed = sealEpochSecret(ROOM, epoch, new Uint8Array(16), [
    { member: OWNER.id, box: OWNER.box },
  ])
  return newRekey(
    ROOM,
    from,
    { epoch, prev, removed: removed.map((m) => m.id), reason, ...sealed, kept },
    at,
  )
}

/** A rekey like `make(at)` whose id sorts below `than` (ids are hashes: a few tries). */
function lowerThan(than: string, make: (at: number) => WireRecord) {
  for (let at = T0; ; at++) {
    const record = make(at)
    if (record.id < than) return record
  }
}

const of = (records: Iterable<WireRecord>) => deriveMembership(ROOM, OWNER.id, records)

/** Owner, co-owner Carl, Alice, and Rem, whom Carl admitted as a co-owner. */
function room(): WireRecord[] {
  return [
    bind(P.owner, OWNER),
    admit(P.owner, OWNER, 'Olga'),
    admit(P.owner, CO, 'Carl', true),
    bind(P.co, CO),
    admit(P.owner, ALICE, 'Alice'),
    bind(P.alice, ALICE),
    admit(P.co, REM, 'Rem', true),
    bind(P.rem, REM),
  ]
}

/** Rem's records before its removal: the remover holds them and keeps them. */
const remBefore = () => [
  bind(P.rem, REM),
  newGoal(ROOM, P.rem, 'before', T0 + 1, 2),
  admit(P.rem, PUPPET, 'Fair', false),
]

/** The owner removes Rem at epoch 1, keeping what it held of Rem. */
const removal = () =>
  rekey(
    P.owner,
    1,
    null,
    [REM],
    remBefore().map((r) => r.id),
  )

function summary(m: Membership) {
  return JSON.stringify({
    members: [...m.members.keys()].sort(),
    removed: [...m.removed.keys()].sort(),
    owners: [...m.owners].sort(),
    peers: [...m.peers].sort(),
    frozen: [...m.frozen].sort(),
    rekeys: m.rekeys.map((r) => r.id),
  })
}

describe('a removed member stays out (the freeze: kept)', () => {
  it('its records from before count; what it writes after counts for nothing, new PeerIds too', () => {
    const after = [
      newGoal(ROOM, P.rem, 'after', T0 + 100, 2),
      bind(P.rem2, REM),
      newGoal(ROOM, P.rem2, 'from a new tab', T0 + 101, 2),
    ]
    const m = of([...room(), ...remBefore(), removal(), ...after])
    expect(m.isActive(REM.id)).toBe(false)
    for (const record of remBefore()) expect(m.counts(record), record.kind).toBe(true)
    for (const record of after) expect(m.counts(record), record.kind).toBe(false)
    // its new tab's bind was not kept: it acts for nobody
    expect(m.memberOf(P.rem2)).toBeUndefined()
    // its admit from before stays: a person it let in is still in
    expect(m.isActive(PUPPET.id)).toBe(true)
  })

  it('a removed co-owner’s admits after its removal let nobody in', () => {
    const late = [admit(P.rem, member(7), 'Sock', true, T0 + 200), bind(P.puppet, member(7))]
    const m = of([...room(), ...remBefore(), removal(), ...late])
    expect(m.members.has(member(7).id)).toBe(false)
    expect(m.memberOf(P.puppet)).toBeUndefined()
    expect(m.counts(newGoal(ROOM, P.puppet, 'sock', T0 + 201, 2))).toBe(false)
  })

  it('a removed co-owner cannot take its removal back with a rekey of an earlier epoch', () => {
    const honest1 = rekey(P.co, 1, null, [ALICE], [bind(P.alice, ALICE).id])
    const removeRem = rekey(
      P.owner,
      2,
      honest1.id,
      [REM],
      remBefore().map((r) => r.id),
    )
    // written after its removal, on epoch 0 whose key it holds, with a lower id than the honest one
    const forged = lowerThan(honest1.id, (at) => rekey(P.rem, 1, null, [CO], [], at))
    const m = of([...room(), ...remBefore(), honest1, removeRem, forged])
    expect(m.rekeys.map((r) => r.id)).toEqual([honest1.id, removeRem.id])
    expect(m.isActive(REM.id)).toBe(false)
    expect(m.isActive(CO.id)).toBe(true)
    // without the removal, the lowest id would win as it always did
    expect(of([...room(), ...remBefore(), honest1, forged]).rekeys[0]!.id).toBe(forged.id)
  })

  it('nor through a puppet co-owner it admits after its removal', () => {
    const honest1 = rekey(P.co, 1, null, [ALICE], [bind(P.alice, ALICE).id])
    const removeRem = rekey(
      P.owner,
      2,
      honest1.id,
      [REM],
      remBefore().map((r) => r.id),
    )
    const sock = member(7)
    const puppetry = [admit(P.rem, sock, 'Sock', true, T0 + 300), bind(P.puppet, sock)]
    const forged = lowerThan(honest1.id, (at) => rekey(P.puppet, 1, null, [CO], [], at))
    const m = of([...room(), ...remBefore(), honest1, removeRem, ...puppetry, forged])
    expect(m.rekeys.map((r) => r.id)).toEqual([honest1.id, removeRem.id])
    expect(m.members.has(sock.id)).toBe(false)
  })

  it('two co-owners removing each other: neither refutation stands, the lowest id wins', () => {
    const a = rekey(P.co, 1, null, [REM], [])
    const b = rekey(P.rem, 1, null, [CO], [])
    const m = of([...room(), a, b])
    expect(m.rekeys[0]!.id).toBe(a.id < b.id ? a.id : b.id)
  })

  it('a co-owner removed while its own rekey raced: the rekey that removes it wins', () => {
    const removing = rekey(P.owner, 1, null, [REM], [bind(P.rem, REM).id])
    const racing = lowerThan(removing.id, (at) => rekey(P.rem, 1, null, [ALICE], [], at))
    const m = of([...room(), removing, racing])
    expect(m.rekeys.map((r) => r.id)).toEqual([removing.id])
    expect(m.isActive(ALICE.id)).toBe(true)
  })

  it('a reset person’s tab bound to their new member acts for it: all its records count', () => {
    const reset = rekey(P.owner, 1, null, [ALICE], [bind(P.alice, ALICE).id], T0 + 5, 'reset')
    const readmit = admit(P.owner, ALICE_NEW, 'Alice', false, T0 + 6)
    const goal = newGoal(ROOM, P.alice, 'after the reset', T0 + 7, 2)
    const m = of([...room(), reset, readmit, bind(P.alice, ALICE_NEW)])
    expect(m.memberOf(P.alice)).toBe(ALICE_NEW.id)
    expect(m.frozen.has(P.alice)).toBe(false)
    expect(m.counts(goal)).toBe(true)
    // before it binds again, its later records do not count
    expect(of([...room(), reset, readmit]).counts(goal)).toBe(false)
  })

  it('a PeerId bound to two members is frozen when the second is removed, by that rekey’s kept', () => {
    const both = bind(P.alice, REM)
    const first = rekey(P.owner, 1, null, [REM], [bind(P.rem, REM).id])
    const work = newGoal(ROOM, P.alice, 'work', T0 + 3, 2)
    const second = rekey(P.owner, 2, first.id, [ALICE], [bind(P.alice, ALICE).id, work.id])
    const m = of([...room(), both, first, second])
    expect(m.frozen.get(P.alice)).toBe(2)
    expect(m.counts(work)).toBe(true)
    expect(m.counts(newGoal(ROOM, P.alice, 'later', T0 + 9, 2))).toBe(false)
  })

  it('is the same whatever order the records come in (seeded shuffles)', () => {
    const honest1 = rekey(P.co, 1, null, [ALICE], [bind(P.alice, ALICE).id])
    const removeRem = rekey(
      P.owner,
      2,
      honest1.id,
      [REM],
      remBefore().map((r) => r.id),
    )
    const records = [
      ...room(),
      ...remBefore(),
      honest1,
      removeRem,
      admit(P.rem, member(7), 'Sock', true, T0 + 300),
      bind(P.puppet, member(7)),
      lowerThan(honest1.id, (at) => rekey(P.puppet, 1, null, [CO], [], at)),
      lowerThan(honest1.id, (at) => rekey(P.rem, 1, null, [CO], [], at)),
      bind(P.rem2, REM),
    ]
    const expected = summary(of(records))
    for (let seed = 1; seed <= 100; seed++) {
      const rng = createRng(seed)
      const order = [...records]
      for (let i = order.length - 1; i > 0; i--) {
        const j = rng.int(0, i)
        ;[order[i], order[j]] = [order[j]!, order[i]!]
      }
      expect(summary(of(order)), `seed ${seed}`).toBe(expected)
    }
  })
})
