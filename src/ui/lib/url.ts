/**
 * What the address bar says: the room and, for a share link, the role.
 * `?room=<name>&role=<role>`; a role in the URL skips the start screen.
 */
import type { Role } from '../../runtime/types'

import { DEFAULT_ROOM } from '../../protocol/topics'

export { DEFAULT_ROOM }
export const ROLES: readonly Role[] = ['decomposer', 'scorer', 'executor', 'observer']

/** Room names are lowercase letters, digits and dashes, as share links carry them. */
const ROOM_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/

export function isValidRoom(room: string): boolean {
  return ROOM_PATTERN.test(room)
}

/** Turns what a person typed into a room name ("My Room" → "my-room"). */
export function normaliseRoom(input: string): string {
  return input
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
}

export function isRole(value: string | null): value is Role {
  return value !== null && (ROLES as readonly string[]).includes(value)
}

export interface Location {
  room: string
  role: Role | null
}

export function readLocation(search: string): Location {
  const params = new URLSearchParams(search)
  const rawRoom = normaliseRoom(params.get('room') ?? '')
  const role = params.get('role')
  return {
    room: isValidRoom(rawRoom) ? rawRoom : DEFAULT_ROOM,
    role: isRole(role) ? role : null,
  }
}

/**
 * Keeps the address bar in step with the session, so a reload rejoins the
 * same room as the same role (and keeps the same PeerId, which the runtime
 * stores per tab).
 */
export function writeLocation(room: string, role: Role | null): void {
  const url = new URL(window.location.href)
  url.searchParams.set('room', room)
  if (role === null) url.searchParams.delete('role')
  else url.searchParams.set('role', role)
  window.history.replaceState(null, '', url)
}

/** The link that makes a friend's tab join `room` as an executor. */
export function shareLink(origin: string, room: string): string {
  const url = new URL('/', origin)
  url.searchParams.set('room', room)
  url.searchParams.set('role', 'executor')
  return url.toString()
}
