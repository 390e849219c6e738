/**
 * Invite links. Version 7 (memberInvite*, parseMemberInvite):
 * `<origin>/?role=<role>#room=<name>&key=<epoch secret>&owner=<owner member
 * id>&me=<member seed>`, one link per person. The version-6 form
 * (`#room=<name>&key=<secret>`: inviteLink, parseInvite, roomFromFragment)
 * is the part of it that names the room and its key; alone, a version-7
 * reader reports it with OldInviteError (tests make such links).
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
  stableRoomId,
} from './room-key'
import { fromBase64url, toBase64url } from './base64url'
import {
  deriveMemberKey,
  MAX_MEMBER_SEED_BYTES,
  MEMBER_SEED_BYTES,
  memberPublicKey,
} from './member-key'

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

/**
 * A version-7 invite: the room's name and an epoch's secret (`room`), the
 * owner's member id, and this person's member seed (`me`). Each person gets
 * their own link; everything opened from it is one member.
 */
export interface MemberInvite {
  /** the epoch key the link's secret derives (transport id and record key) */
  room: RoomKey
  /** the room's owner (its creator's member id): with the name, the stable id */
  owner: string
  /** stableRoomId(room.name, owner): the records' `room` field */
  stable: string
  /** this person's member seed */
  me: Uint8Array
}

/** Whether the invite is the owner's own link (its member seed is the owner's). */
export function isOwnersLink(invite: Pick<MemberInvite, 'owner' | 'me'>): boolean {
  return deriveMemberKey(invite.me).id === invite.owner
}

/**
 * A link from an older version (6 or before: `room` and `key` but no `owner`
 * or `me`). It still names a room, so the app can say so and offer a new one.
 */
export class OldInviteError extends InvalidRoomKeyError {
  override name = 'OldInviteError'
  constructor(readonly room: string) {
    super(`this invite to “${room}” is from an older version of Murmuration: ask for a new link`)
  }
}

/** The fragment (without '#') of a version-7 invite: room, key, owner, me. */
export function memberInviteFragment(invite: Omit<MemberInvite, 'stable'>): string {
  return new URLSearchParams({
    room: invite.room.name,
    key: encodeSecret(invite.room.secret),
    owner: invite.owner,
    me: toBase64url(invite.me),
  }).toString()
}

/**
 * The version-7 invite a fragment carries, or null when it names no room.
 * Throws OldInviteError for a version-6 link (room and key, no owner or me),
 * InvalidRoomKeyError when it is broken.
 */
export function memberInviteFromFragment(fragment: string): MemberInvite | null {
  const room = roomFromFragment(fragment)
  if (room === null) return null
  const params = new URLSearchParams(fragment.replace(/^#/, ''))
  const owner = params.get('owner')
  const me = params.get('me')
  if (owner === null && me === null) throw new OldInviteError(room.name)
  if (owner === null || memberPublicKey(owner) === null) {
    throw new InvalidRoomKeyError(`the invite to “${room.name}” has no valid owner`)
  }
  let seed: Uint8Array
  try {
    seed = fromBase64url(me ?? '')
  } catch {
    throw new InvalidRoomKeyError(`the invite to “${room.name}” has no valid member key`)
  }
  if (seed.length < MEMBER_SEED_BYTES || seed.length > MAX_MEMBER_SEED_BYTES) {
    throw new InvalidRoomKeyError(`the invite to “${room.name}” has no valid member key`)
  }
  return { room, owner, stable: stableRoomId(room.name, owner), me: seed }
}

/** A version-7 invite link on `origin`, optionally as `role`. */
export function memberInviteLink(
  origin: string,
  invite: Omit<MemberInvite, 'stable'>,
  role?: string,
): string {
  const url = new URL('/', origin)
  if (role !== undefined) url.searchParams.set('role', role)
  url.hash = memberInviteFragment(invite)
  return url.toString()
}

/**
 * Reads a version-7 invite link as pasted by a person. Throws OldInviteError
 * for a version-6 link, InvalidRoomKeyError when it is not an invite.
 */
export function parseMemberInvite(link: string): MemberInvite & { role: string | null } {
  const { role } = parseInvite(link)
  const invite = memberInviteFromFragment(new URL(link.trim()).hash)!
  return { ...invite, role }
}
