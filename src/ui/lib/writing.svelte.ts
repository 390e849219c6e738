/**
 * Who writes which task, and this tab's text of its own, for every component
 * of the plan (context, so the tree does not pass it down level by level).
 */
import { getContext, setContext } from 'svelte'
import type { TaskView } from '../../plan/tree'
import type { LiveText } from '../../runtime/types'
import type { Session } from './session.svelte'
import { liveTextOf, writerOf } from './writing'

export interface Writing {
  /** the peer writing the task now (this tab's own id when it is), or null */
  writer(task: TaskView | null | undefined): string | null
  /** this tab's text of the task so far, while its call runs */
  text(task: TaskView | null | undefined): LiveText | null
}

const KEY = Symbol('writing')

const NOBODY: Writing = { writer: () => null, text: () => null }

/** Reads the session's state when asked, so components that call it re-render as it changes. */
export function provideWriting(session: () => Session): void {
  setContext<Writing>(KEY, {
    writer: (task) => {
      const { runtime, activity, live } = session()
      return writerOf(task, runtime.peerId, activity.swarm, live)
    },
    text: (task) => liveTextOf(task, session().live),
  })
}

export function writing(): Writing {
  return getContext<Writing | undefined>(KEY) ?? NOBODY
}
