/**
 * The plan as members see it (since version 7): only records whose author
 * PeerId acts for an admitted member count (src/protocol/membership.ts),
 * and (since version 8) of a removed member's PeerIds only the records its
 * removal's rekey keeps. A record that does not count stays in the store
 * (an unbound PeerId's bind may still arrive) but no rule sees it. Opt-in:
 * derivePlan filters only when given a membership, so tests and the
 * simulator that make records without binds derive as before.
 */
import type { PlanRecord } from '../protocol/records'
import { AUTHOR_QUOTA } from '../protocol/limits'
import { AuthorQuota } from '../protocol/quota'
import { PlanState } from './state'

/** What the plan needs of a membership (membership.ts's Membership has it). */
export interface PlanMembership {
  /** whether a record counts (its author acts for a member; a removed one's, if its removal keeps it) */
  counts(record: { id: string; from: string }): boolean
  /** the member `peerId` acts for: goal limits count per member */
  memberOf(peerId: string): string | undefined
  /** admitted and not removed: a removed member's unsettled goals stop (derive.ts) */
  isActive(member: string): boolean
}

/** The held set already applied the quota: the copy keeps everything it is given. */
const NO_LIMITS = Object.fromEntries(
  Object.keys(AUTHOR_QUOTA).map((kind) => [kind, Number.POSITIVE_INFINITY]),
) as Record<keyof typeof AUTHOR_QUOTA, number>

const views = new WeakMap<
  PlanState,
  { version: number; membership: PlanMembership; view: PlanState }
>()

/**
 * A copy of `plan` with only the plan records whose author counts (member
 * records left out: they are not plan work), its `version` the original's.
 * Cached per plan until its version or the membership changes.
 */
export function countedView(plan: PlanState, membership: PlanMembership): PlanState {
  const cached = views.get(plan)
  if (cached && cached.version === plan.version && cached.membership === membership) {
    return cached.view
  }
  const view = new PlanState(new AuthorQuota(NO_LIMITS))
  for (const record of plan.records()) {
    if (isWork(record) && membership.counts(record)) view.add(record)
  }
  view.version = plan.version
  views.set(plan, { version: plan.version, membership, view })
  return view
}

function isWork(record: PlanRecord): boolean {
  return record.kind !== 'bind' && record.kind !== 'admit' && record.kind !== 'rekey'
}
