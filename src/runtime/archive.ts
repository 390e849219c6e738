/**
 * "Archive finished goals": export the settled root goals of this peer's
 * plan, then drop their records from the plan store (memory and storage),
 * remembering their ids, and from the role core's plan. Peers that still
 * hold those records are not affected: sync treats archived ids as held
 * (docs/PROTOCOL.md §7.5), so nothing is fetched again and nothing is lost
 * for anyone who did not archive.
 */
import { archiveIds, settledRoots } from '../plan/archive'
import { derivePlan } from '../plan/derive'
import { PlanState } from '../plan/state'
import type { PlanTree } from '../plan/tree'
import type { Membership } from '../protocol/membership'
import type { CoreHost } from './host'
import type { PlanStore } from './store'
import type { ArchiveResult } from './types'

export const ARCHIVE_FORMAT = 'murmuration-archive/1'

function base64(bytes: Uint8Array): string {
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  }
  return btoa(binary)
}

/** The archive document: the goals as the tree shows them, and every signed record (base64). */
export function archiveJson(
  room: string,
  tree: PlanTree,
  roots: readonly string[],
  records: readonly Uint8Array[],
  at: number,
): string {
  const wanted = new Set(roots)
  return JSON.stringify({
    format: ARCHIVE_FORMAT,
    room,
    archivedAt: at,
    goals: tree.goals.filter((goal) => wanted.has(goal.id)),
    records: records.map(base64),
  })
}

/**
 * `membership`: the room's, when the peer has a member (version 7): the goals
 * settled are those of the plan its tree shows, which counts only members'
 * records (as roles/room-view.ts derives it); without one, every record counts.
 */
export async function archiveFinished(
  room: string,
  store: PlanStore,
  core: CoreHost,
  now: number,
  membership?: Membership,
): Promise<ArchiveResult> {
  const state = new PlanState()
  for (const record of store.records()) state.add(record)
  const plan = derivePlan(state, membership ? { membership } : {})
  const roots = settledRoots(plan)
  if (roots.length === 0) return { goals: 0, records: 0, json: null }
  const ids = archiveIds(state, roots, plan)
  const bytes: Uint8Array[] = []
  for (const id of ids) {
    const b = store.get(id)
    if (b !== undefined) bytes.push(b)
  }
  const json = archiveJson(room, core.tree(), roots, bytes, now)
  await store.archive(ids)
  core.archive([...ids])
  return { goals: roots.length, records: ids.size, json }
}
