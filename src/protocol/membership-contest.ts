/**
 * Which rekey wins an epoch that several candidates contest (docs/PROTOCOL.md
 * §0.1 rule 3, since version 8). Pure; membership.ts calls it only when an
 * epoch has two candidates or more.
 *
 * Without it the lowest id would win, and a removed co-owner could take its
 * removal back: it still holds the old epochs' keys, so it can write a rekey
 * for an epoch before its removal (or admit a puppet co-owner to write one)
 * with a lower id, and the chain would follow that rekey instead of the
 * honest one whose successor removed it. Here a rekey **refutes** another
 * when, with what it freezes taken out (the records of the members it
 * removes that it does not keep), the other would no longer be an owner's
 * rekey; refutations are settled as an argument graph's grounded labelling
 * (a rekey stands when every rekey refuting it is defeated, and is defeated
 * when a standing rekey refutes it), and the lowest-id candidate not
 * defeated wins. The root owner cannot be removed, so its rekeys always
 * stand; two co-owners that each remove the other refute each other, neither
 * is defeated, and the lowest id decides as before.
 */
import {
  actingOwner,
  admission,
  newlyFrozen,
  type Admission,
  type MemberRecords,
} from './membership-admission'
import type { RekeyRecord } from './records'

export interface ContestState {
  /** the root owner */
  owner: string
  records: MemberRecords
  /** member records frozen by the chain's removals so far */
  out: ReadonlySet<string>
  /** rules 1 and 2 over the records not in `out` */
  adm: Admission
  /** members removed at the epochs before the contested one */
  removed: { has(member: string): boolean }
  /** PeerIds the chain's removals so far froze */
  frozen: { has(peerId: string): boolean }
}

/** The winner among `candidates` (two or more, by id) of one epoch. */
export function contestWinner(
  state: ContestState,
  candidates: readonly RekeyRecord[],
): RekeyRecord {
  const { owner, records, out, adm, removed } = state
  // every rekey that may refute: counted, not removing the root owner, by an owner not removed
  const rekeys = records.rekeys.filter(
    (r) =>
      !out.has(r.id) &&
      !r.removed.includes(owner) &&
      actingOwner(adm, r.from, removed) !== undefined,
  )
  const stands = new Map(rekeys.map((k) => [k.id, standsWithout(state, k)]))
  const refuters = new Map(
    rekeys.map((x) => [x.id, rekeys.filter((k) => k.id !== x.id && !stands.get(k.id)!(x))]),
  )
  // grounded labelling: the least set of decisions every peer makes alike
  const standing = new Set<string>()
  const defeated = new Set<string>()
  for (let changed = true; changed;) {
    changed = false
    for (const x of rekeys) {
      if (standing.has(x.id) || defeated.has(x.id)) continue
      const against = refuters.get(x.id)!
      if (against.every((k) => defeated.has(k.id))) standing.add(x.id)
      else if (against.some((k) => standing.has(k.id))) defeated.add(x.id)
      else continue
      changed = true
    }
  }
  return candidates.find((c) => !defeated.has(c.id)) ?? candidates[0]!
}

/**
 * Whether a rekey is still an owner's rekey once `k`'s removal froze what it
 * does not keep: the records of the PeerIds it leaves bound to removed
 * members only (one pass: enough to drop a removed owner's own rekeys and
 * the admits of any puppet it made).
 */
function standsWithout(state: ContestState, k: RekeyRecord): (x: RekeyRecord) => boolean {
  const { owner, records, out, adm, removed, frozen } = state
  const removing = new Set(k.removed)
  const gone = { has: (m: string) => removed.has(m) || removing.has(m) }
  const peers = new Set(newlyFrozen(adm, gone, frozen))
  const kept = new Set(k.kept)
  const outK = new Set(out)
  for (const list of [records.binds, records.admits, records.rekeys])
    for (const r of list) if (peers.has(r.from) && !kept.has(r.id)) outK.add(r.id)
  const admK = outK.size === out.size ? adm : admission(owner, records, outK)
  return (x) => !outK.has(x.id) && actingOwner(admK, x.from, removed) !== undefined
}
