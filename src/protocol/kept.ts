/**
 * What a rekey keeps of the members it removes (docs/PROTOCOL.md §0.1,
 * since version 8): the remover lists the ids of every record it holds by
 * the removed members' PeerIds, archived ones included, and membership.ts
 * counts nothing else of theirs. Pure: the runtime gathers the records.
 */
import { MAX_KEPT } from './limits'
import type { PlanRecord } from './records'

/** What the list needs of a record: its id, kind and author. */
export interface KeptCandidate {
  id: string
  kind: PlanRecord['kind']
  from: string
}

/**
 * The order a remover keeps kinds in when a removed member has more than
 * MAX_KEPT records: member records first (without its bind, nothing else of
 * a PeerId counts), then the person's own goals and steering, then finished
 * work (claims with their results, decisions, failures), then votes and
 * proposals (the decisions citing them were made already).
 */
export const KEPT_KIND_ORDER: readonly PlanRecord['kind'][] = [
  'bind',
  'admit',
  'rekey',
  'goal',
  'cancel',
  'steer',
  'verdict',
  'redo',
  'claim',
  'result',
  'accept',
  'failure',
  'reannounce',
  'proposal',
  'score',
]

const rank = new Map(KEPT_KIND_ORDER.map((kind, i) => [kind, i]))

/**
 * The `kept` of a rekey removing the members whose PeerIds are `peers`:
 * the ids of `held` (this peer's records and archived ids, with their
 * authors) by those PeerIds, unique and sorted; of more than `max`, the
 * first by KEPT_KIND_ORDER, then lowest id.
 */
export function keptIds(
  held: Iterable<KeptCandidate>,
  peers: ReadonlySet<string>,
  max = MAX_KEPT,
): string[] {
  const byId = new Map<string, KeptCandidate>()
  for (const record of held) if (peers.has(record.from)) byId.set(record.id, record)
  const chosen = [...byId.values()]
  if (chosen.length > max) {
    chosen.sort(
      (a, b) =>
        (rank.get(a.kind) ?? KEPT_KIND_ORDER.length) -
          (rank.get(b.kind) ?? KEPT_KIND_ORDER.length) || (a.id < b.id ? -1 : 1),
    )
    chosen.length = max
  }
  return chosen.map((record) => record.id).sort()
}
