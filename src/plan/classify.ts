/**
 * How an accepted split's subgoals are classified (since protocol version
 * 7, issue 46): by the scorers whose votes accepted it, not by a call of its
 * own. Each score carries its scorer's judgement of every subgoal (atomic or
 * not, and the capability it needs); the voters of a split are the counted
 * votes its accept cites, and each subgoal takes their majority judgement.
 * The classification is thus a vote of independent peers, a pure function of
 * the record set: nothing more is published, and nothing can fail.
 * docs/PROTOCOL.md §5.1.
 */
import type { Capability } from '../protocol/capabilities'
import type { AcceptRecord, Judgement, ScoreRecord } from '../protocol/records'

export interface Classification {
  /** one concrete deliverable: a leaf with an execute task; else a child goal */
  atomic: boolean
  /** atomic only because of the depth cap: its voters judged it still to be split */
  capped: boolean
  /** what producing the deliverable needs, by its voters */
  capability: Capability
  /** the tool group it needs, by its voters (since version 8); null for none */
  tool: string | null
  /** how many of the voters judged it atomic */
  atomicVotes: number
  /** how many votes classified it (the accept's counted, cited votes) */
  voters: number
}

/**
 * The order in which voters break ties: the highest score first (the scorer
 * that thought best of the split), then the lowest score id. A total order on
 * the record set, the same on every peer.
 */
export function judgingOrder(
  a: Pick<ScoreRecord, 'score' | 'id'>,
  b: Pick<ScoreRecord, 'score' | 'id'>,
): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/**
 * The voters of an accepted split: its counted votes (one per scorer, each
 * with one judgement per subgoal: derive.ts) that the accept cites, in
 * judging order.
 */
export function splitVoters(accept: AcceptRecord, counted: readonly ScoreRecord[]): ScoreRecord[] {
  const cited = new Set(accept.votes)
  return counted.filter((vote) => cited.has(vote.id)).sort(judgingOrder)
}

/**
 * Classify subgoal `index` of an accepted split from its voters (in judging
 * order, at least one; each with a judgement at `index`):
 * - atomic when more voters judged it atomic than not, composite when fewer;
 *   on a tie, as the first voter judged it;
 * - its capability: the one most named by the voters on the winning side;
 *   on a tie, the first of them (in judging order) naming one of the tied;
 * - its tool group, likewise among the same voters ("none" counts as a
 *   choice: a group most of them named, or none);
 * - at the depth cap (`atCap`) it is atomic whatever they judged (`capped`
 *   when they judged it composite).
 */
export function classifySubgoal(
  voters: readonly Pick<ScoreRecord, 'judgements'>[],
  index: number,
  atCap: boolean,
): Classification {
  const judged = voters.map((vote) => vote.judgements[index]!)
  const atomicVotes = judged.filter((j) => j.atomic).length
  const composite = judged.length - atomicVotes
  const side = atomicVotes > composite ? true : composite > atomicVotes ? false : judged[0]!.atomic
  const winners = judged.filter((j) => j.atomic === side)
  const capability = mostNamed(winners, (j) => j.capability)
  const tool = mostNamed(winners, (j) => j.tool ?? '')
  return {
    atomic: side || atCap,
    capped: atCap && !side,
    capability,
    tool: tool === '' ? null : tool,
    atomicVotes,
    voters: judged.length,
  }
}

/** The value most of `judged` name; on a tie, the first (in judging order) naming one of the tied. */
function mostNamed<T>(judged: readonly Judgement[], pick: (j: Judgement) => T): T {
  const tally = new Map<T, number>()
  for (const j of judged) tally.set(pick(j), (tally.get(pick(j)) ?? 0) + 1)
  const most = Math.max(...tally.values())
  return pick(judged.find((j) => tally.get(pick(j)) === most)!)
}

/** Does a vote judge every subgoal of its proposal, one judgement each? Else it does not count. */
export function judgesEverySubgoal(vote: ScoreRecord, subgoals: number): boolean {
  return vote.judgements.length === subgoals
}

/** Why a subgoal was classified so, in words, for people (the tree's `reason`). */
export function classificationReason(c: Classification): string {
  const of = `${c.atomicVotes === 0 ? 'none' : c.atomicVotes} of ${c.voters} voters`
  const judged = `${of} judged it one deliverable`
  if (c.capped) return `${judged}; at the depth cap it is one anyway`
  const needs = c.tool ? `${c.capability}, tool group ${c.tool}` : c.capability
  return c.atomic ? `${judged} (${needs})` : `${judged}: split again`
}
