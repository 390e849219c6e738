/**
 * The room as this tab hears it, for components deep in the plan (context,
 * so the tree does not pass it down level by level): the presence-based
 * roster for "why nothing moves", and this tab's runtime for a one-click fix.
 */
import { getContext, setContext } from 'svelte'
import type { PeerRuntime, RoleActivity } from '../../runtime/types'
import type { Session } from './session.svelte'
import type { RoomInvite } from './invite'

export interface RoomContext {
  activity(): RoleActivity
  room(): RoomInvite
  runtime(): PeerRuntime
}

const KEY = Symbol('room')

/** Reads the session's state when asked, so components that call it re-render as it changes. */
export function provideRoom(session: () => Session): void {
  setContext<RoomContext>(KEY, {
    activity: () => session().activity,
    room: () => session().room,
    runtime: () => session().runtime,
  })
}

/** null outside a workspace (the dev lab) */
export function roomContext(): RoomContext | null {
  return getContext<RoomContext | undefined>(KEY) ?? null
}
