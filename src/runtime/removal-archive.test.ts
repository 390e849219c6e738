/**
 * A removal keeps the removed member's archived records too (PROTOCOL.md
 * §0.1, since version 8): an owner that archived a settled goal in which
 * the member did work lists that work in its rekey's `kept` (the store
 * remembers who wrote what it archived), so on a peer that did not archive
 * the goal it still counts and the goal stays settled, not reopened and
 * done again.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { encodeRecord } from '../protocol/codec'
import { keptIds } from '../protocol/kept'
import { deriveMemberKey, sealEpochSecret } from '../protocol/member-key'
import { deriveMembership } from '../protocol/membership'
import { newAdmit, newBind, newRekey, type PlanRecord, type RekeyRecord } from '../protocol/records'
import { archiveIds, settledRoots } from '../plan/archive'
import { derivePlan } from '../plan/derive'
import { PlanState } from '../plan/state'
import { DEFAULT_SWARM } from '../sim/swarm'
import { runSeed } from '../sim/run'
import { memoryPersistence, type RecordPersistence } from './persist'
import { PlanStore } from './store'

const OWNER = deriveMemberKey(Uint8Array.from({ length: 16 }, (_, i) => i))
const OWNER_PEER = `12D3KooW${'Owner'.padEnd(44, 'x')}`
const T0 = 1_800_000_000_000

/** A finished plan from the simulator, and members for it: each of its peers a person. */
let plan: PlanRecord[] = []
let members: PlanRecord[] = []
let room = ''
let root = ''
/** the sim peer that executed leaves: the member we remove */
let rem = ''
let remMember = ''

beforeAll(() => {
  let records: PlanRecord[] = []
  runSeed({
    ...DEFAULT_SWARM,
    seed: 8,
    onStep: (s) => {
      const observer = s.alive().find((p) => p.role === 'observer')
      if (observer?.state) records = [...observer.state.plan.records()]
    },
  })
  plan = records
  const derived = derivePlan(stateOf(plan))
  root = derived.roots[0]!
  room = plan[0]!.room
  rem = plan.find((r) => r.kind === 'result')!.from
  const authors = [...new Set(plan.map((r) => r.from))]
  members = [newBind(room, OWNER_PEER, OWNER)]
  authors.forEach((peerId, n) => {
    const key = deriveMemberKey(Uint8Array.from({ length: 16 }, (_, i) => 100 + n + i))
    if (peerId === rem) remMember = key.id
    members.push(
      newAdmit(
        room,
        OWNER_PEER,
        { member: key.id, box: key.box, name: `P${n}`, coOwner: false },
        T0,
      ),
      newBind(room, peerId, key),
    )
  })
})

function stateOf(list: readonly PlanRecord[]): PlanState {
  const state = new PlanState()
  for (const record of list) state.add(record)
  return state
}

/** Bytes a store can hold: the store reads the body back; nobody checks this signature. */
const bytesOf = (record: PlanRecord) =>
  encodeRecord(record, { peerId: record.from, sign: async () => new Uint8Array(64) })

/** The owner's store, its settled goal archived, and the rekey it then makes to remove Rem. */
async function removalAfterArchiving(persistence: RecordPersistence): Promise<RekeyRecord> {
  const store = new PlanStore({ room, persistence, onRecord: () => {} })
  for (const record of [...members, ...plan]) store.addVerified(record, await bytesOf(record))
  const held = stateOf(store.records())
  const membership = deriveMembership(room, OWNER.id, held.memberRecords())
  const derived = derivePlan(held, { membership })
  expect(settledRoots(derived)).toEqual([root])
  const dropped = await store.archive(archiveIds(held, [root], derived))
  expect(dropped).toBeGreaterThan(0)
  expect(store.records().some((r) => r.from === rem && r.kind === 'result')).toBe(false)
  const peers = new Set([rem])
  const sealed = sealEpochSecret(room, 1, new Uint8Array(16), [
    { member: OWNER.id, box: OWNER.box },
  ])
  return newRekey(
    room,
    OWNER_PEER,
    {
      epoch: 1,
      prev: null,
      removed: [remMember],
      reason: 'remove',
      ...sealed,
      kept: keptIds(await store.heldBy(peers), peers),
    },
    T0 + 1,
  )
}

/** The goal's tree as a peer that archived nothing derives it, once the rekey reached it. */
function elsewhere(rekey: RekeyRecord) {
  const state = stateOf([...members, ...plan, rekey])
  const membership = deriveMembership(room, OWNER.id, state.memberRecords())
  expect(membership.isActive(remMember)).toBe(false)
  const derived = derivePlan(state, { membership })
  const tree = [...derived.goals.values()].filter((g) => g.root === root)
  return {
    status: derived.goals.get(root)!.status,
    authorRemoved: derived.goals.get(root)!.authorRemoved,
    /** leaves no executor has to do (again) */
    settled: tree.every((g) => g.slots.every((s) => s.status === 'done' || s.status === 'failed')),
  }
}

describe('a removal keeps what the remover archived of the member', () => {
  it('the goal stays done on a peer that did not archive it', async () => {
    const rekey = await removalAfterArchiving(memoryPersistence())
    const ownResults = plan.filter((r) => r.kind === 'result' && r.from === rem)
    expect(ownResults.length).toBeGreaterThan(0)
    for (const result of ownResults) expect(rekey.kept).toContain(result.id)
    expect(elsewhere(rekey)).toEqual({ status: 'done', authorRemoved: false, settled: true })
  })

  it('without the archive’s authors the member’s leaves there would stop counting and open again', async () => {
    const forgetful = { ...memoryPersistence(), saveArchivedAuthors: undefined }
    const rekey = await removalAfterArchiving(forgetful)
    expect(elsewhere(rekey).settled).toBe(false)
  })
})
