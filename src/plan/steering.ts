/**
 * The author's steering of a goal (issue 27, docs/PROTOCOL.md §5.12): pause,
 * approval of splits, vetoes and redos. Pure rules over the record set, like
 * authority.ts: only the root goal's author's records count (`actsFor`:
 * its PeerId, or with a membership any PeerId of the same member), and every
 * choice below is by the author's own `at` (then the record id), never by
 * arrival, so every peer derives the same outcome in any order.
 *
 * Why the author's clock may order these: only the author (its member's
 * tabs and agents) can sign them, so a wrong clock, or two tabs' clocks
 * that disagree, can only confuse the author's own plan; a replayed record is
 * the same record (same content id) and changes nothing; a stale record
 * (an old approve, a second tab's redo of a leaf already redone) names a
 * proposal or a task that no longer counts, or loses to an earlier one.
 */
import { contentId } from '../protocol/hash'
import { samePeer, type ActsFor } from './authority'
import { MAX_REDOS_PER_LEAF, MAX_VETOES_PER_GOAL } from '../protocol/limits'
import type {
  ApprovalMode,
  GoalRecord,
  RedoRecord,
  SteerRecord,
  VerdictRecord,
} from '../protocol/records'

/** Earlier `at` first, then lower id: the author's first word on a matter stands. */
function earlier<R extends { at: number; id: string }>(a: R, b: R): boolean {
  return a.at < b.at || (a.at === b.at && a.id < b.id)
}

export interface GoalSettings {
  paused: boolean
  approve: ApprovalMode
}

/**
 * A root goal's settings: its author's latest steer (by `at`, then the
 * highest id), else what the goal record asked for, unpaused.
 */
export function goalSettings(
  root: GoalRecord,
  steers: readonly SteerRecord[],
  actsFor: ActsFor = samePeer,
): GoalSettings {
  let latest: SteerRecord | null = null
  for (const steer of steers) {
    if (!actsFor(steer.from, root.from) || steer.goal !== root.id) continue
    if (latest === null || earlier(latest, steer)) latest = steer
  }
  if (latest) return { paused: latest.paused, approve: latest.approve }
  return { paused: false, approve: root.approve ?? 'none' }
}

/** Does a split of a goal at `depth` wait for the author's approval under `mode`? */
export function needsApproval(mode: ApprovalMode, depth: number): boolean {
  return mode === 'every' || (mode === 'root' && depth === 0)
}

/**
 * The author's verdict on `proposal`: the earliest of the author's verdicts
 * naming it (an approval and a veto from two tabs: the first click stands).
 */
export function verdictOn(
  verdicts: readonly VerdictRecord[],
  author: string,
  proposal: string,
  actsFor: ActsFor = samePeer,
): VerdictRecord | null {
  let first: VerdictRecord | null = null
  for (const verdict of verdicts) {
    if (!actsFor(verdict.from, author) || verdict.proposal !== proposal) continue
    if (first === null || earlier(verdict, first)) first = verdict
  }
  return first
}

/**
 * A goal's decision under vetoes. A veto counts when it is the author's
 * earliest verdict on its proposal and that proposal was accepted (an
 * authorised accept with valid evidence names it: `wasAccepted`); the
 * author's counted vetoes are taken by `at`, then id, at most
 * MAX_VETOES_PER_GOAL of them. The proposals they list are retired, and the
 * decision (`acceptOf`) is taken among the others. Pure: two accepts of the
 * same epoch (the vetoed split's and the next one's) never decide which
 * vetoes count, so every peer gets the same rounds in any order.
 */
export function vetoRounds<A>(
  verdicts: readonly VerdictRecord[],
  author: string,
  wasAccepted: (proposal: string) => boolean,
  acceptOf: (retired: ReadonlySet<string>) => A | null,
  actsFor: ActsFor = samePeer,
): { accept: A | null; vetoes: VerdictRecord[]; retired: Set<string> } {
  const vetoes = verdicts
    .filter(
      (verdict) =>
        !verdict.approve &&
        verdictOn(verdicts, author, verdict.proposal, actsFor) === verdict &&
        wasAccepted(verdict.proposal),
    )
    .sort((a, b) => (earlier(a, b) ? -1 : 1))
    .slice(0, MAX_VETOES_PER_GOAL)
  const retired = new Set<string>()
  for (const veto of vetoes) for (const id of veto.retire) retired.add(id)
  return { accept: acceptOf(retired), vetoes, retired }
}

export interface RedoStep<T> {
  task: T
  redo: RedoRecord
}

/**
 * A leaf's chain of execute tasks under redos. The first task's subject is
 * the node id; while the current task is done or failed and its author sent
 * it back (the earliest redo naming it), the next task's subject is that
 * redo's id, at most MAX_REDOS_PER_LEAF times. Returns the current task and
 * the superseded ones with the redo that replaced each.
 */
export function redoChain<T extends { id: string; status: string }>(
  first: T,
  author: string,
  taskOf: (subject: string) => T,
  redosOf: (task: string) => readonly RedoRecord[],
  actsFor: ActsFor = samePeer,
): { current: T; superseded: RedoStep<T>[] } {
  const superseded: RedoStep<T>[] = []
  let current = first
  while (superseded.length < MAX_REDOS_PER_LEAF) {
    if (current.status !== 'done' && current.status !== 'failed') break
    let redo: RedoRecord | null = null
    for (const candidate of redosOf(current.id)) {
      if (!actsFor(candidate.from, author)) continue
      if (redo === null || earlier(candidate, redo)) redo = candidate
    }
    if (!redo) break
    superseded.push({ task: current, redo })
    current = taskOf(redo.id)
  }
  return { current, superseded }
}

/**
 * The subject of a goal's roll-up task: the goal id while nothing under it
 * was redone and its split was never vetoed; else a hash of the goal id, its
 * counted vetoes and every counted redo under it, so a redo anywhere below
 * gives every goal on its way up a new roll-up (the old result stays,
 * superseded), and a vetoed split's roll-up never stands for the next one.
 */
export function rollupSubject(goal: string, redos: readonly string[]): string {
  if (redos.length === 0) return goal
  return contentId(['rollup', goal, ...[...redos].sort()])
}
