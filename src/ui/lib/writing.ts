/**
 * Who is writing a task right now, for every tab, from what already
 * travels: the task's claim (its holder, in the plan) and the holder's
 * presence beat, whose `holding` renews its lease on the task. A holder that
 * still beats with the task in hand is working on it; one whose beat dropped
 * it (or that went silent) is not. This tab knows better for itself: it is
 * writing while its call runs (its live text, live-text.ts). No new record
 * or field goes on the wire for this.
 */
import type { TaskView } from '../../plan/tree'
import type { LiveText, SwarmMember } from '../../runtime/types'

export function writerOf(
  task: TaskView | null | undefined,
  self: string,
  swarm: readonly SwarmMember[],
  live: readonly LiveText[],
): string | null {
  if (!task || task.status !== 'claimed' || !task.holder) return null
  if (task.holder === self) return live.some((l) => l.task === task.id) ? self : null
  const holder = swarm.find((m) => m.peerId === task.holder)
  return holder?.holding.includes(task.id) ? task.holder : null
}

/** This tab's live text of a task, while its call runs. */
export function liveTextOf(
  task: TaskView | null | undefined,
  live: readonly LiveText[],
): LiveText | null {
  return (task && live.find((l) => l.task === task.id)) ?? null
}
