/**
 * Invite links: `<origin>/?role=<role>#room=<name>&key=<secret>`.
 *
 * The room's name and secret travel in the URL fragment, which browsers never
 * send in a request: the app server, the relay and any proxy log see only
 * `/?role=executor`. The role may stay in the query (it is not secret, and a
 * reload keeps it). Pure: the UI and the headless agent both use it.
 */
import {
  decodeSecret,
  deriveRoomKey,
  encodeSecret,
  InvalidRoomKeyError,
  ROOM_NAME_PATTERN,
  type RoomKey,
} from './room-key'

export interface Invite {
  room: RoomKey
  /** the role the link asks for, if any (query `role=`) */
  role: string | null
}

/** The fragment (without '#') that carries a room. */
export function inviteFragment(room: RoomKey): string {
  return new URLSearchParams({ room: room.name, key: encodeSecret(room.secret) }).toString()
}

/** The room a fragment names, or null when it names none; throws InvalidRoomKeyError when it is broken. */
export function roomFromFragment(fragment: string): RoomKey | null {
  const params = new URLSearchParams(fragment.replace(/^#/, ''))
  const name = params.get('room')
  const key = params.get('key')
  if (name === null && key === null) return null
  if (name === null || !ROOM_NAME_PATTERN.test(name)) {
    throw new InvalidRoomKeyError('the invite has no valid room name')
  }
  if (key === null) throw new InvalidRoomKeyError(`the invite to “${name}” has no key`)
  return deriveRoomKey(name, decodeSecret(key))
}

/** An invite link to `room` on `origin`, optionally as `role`. */
export function inviteLink(origin: string, room: RoomKey, role?: string): string {
  const url = new URL('/', origin)
  if (role !== undefined) url.searchParams.set('role', role)
  url.hash = inviteFragment(room)
  return url.toString()
}

/** Reads an invite link as pasted by a person. Throws InvalidRoomKeyError when it is not one. */
export function parseInvite(link: string): Invite {
  let url: URL
  try {
    url = new URL(link.trim())
  } catch {
    throw new InvalidRoomKeyError('not a link')
  }
  const room = roomFromFragment(url.hash)
  if (room === null) {
    const named = url.searchParams.get('room')
    throw new InvalidRoomKeyError(
      named
        ? `this link names room “${named}” but carries no invite key (a part after #)`
        : 'this link carries no invite (a part after #room=…&key=…)',
    )
  }
  return { room, role: url.searchParams.get('role') }
}
