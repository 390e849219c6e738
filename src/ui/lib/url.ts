/**
 * Room names, roles, and the share link. The address bar itself (the room in
 * the fragment, the role in the query) is read and written by invite.ts.
 */
import { memberInviteLink } from '../../protocol/invite'
import type { Role } from '../../runtime/types'

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

/**
 * The link that makes one person's tab join the room as an executor, as
 * that person's member: the room's name, an epoch's secret, the owner and
 * their member seed ride in the fragment (src/protocol/invite.ts).
 */
export function shareLink(
  origin: string,
  invite: { room: import('../../protocol/room-key').RoomKey; owner: string; me: Uint8Array },
): string {
  return memberInviteLink(origin, invite, 'executor')
}
