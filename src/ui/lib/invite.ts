/**
 * Rooms in the browser: what the address bar says, the rooms this browser
 * knows, and making a new one. Since version 7 a link is one person's: the
 * room's name and an epoch's secret, the room's owner and this person's
 * member seed (src/protocol/invite.ts), all in the URL fragment (never sent
 * to a server) and in this browser's localStorage.
 *
 * A link that names a room but carries no key (`?room=trip`, as links of
 * protocol 1 did), or a version-6 link (a key but no owner or member), cannot
 * join anything: the start screen says so and offers a new room of that name
 * (a different, private room) or to paste a current link.
 */
import {
  isOwnersLink,
  memberInviteFragment,
  memberInviteFromFragment,
  memberInviteLink,
  OldInviteError,
} from '../../protocol/invite'
import { deriveMemberKey, newMemberSeed } from '../../protocol/member-key'
import { fromBase64url, toBase64url } from '../../protocol/base64url'
import { MAX_MEMBER_NAME } from '../../protocol/limits'
import {
  decodeSecret,
  deriveRoomKey,
  encodeSecret,
  newRoomSecret,
  randomBytes,
  stableRoomId,
  type RoomKey,
} from '../../protocol/room-key'
import type { Role } from '../../runtime/types'
import { isRole, isValidRoom, normaliseRoom } from './url'

/** A person's way into a room: an epoch's key, the room's owner, and their own member seed. */
export interface RoomInvite {
  room: RoomKey
  /** the room's owner (its creator's member id) */
  owner: string
  /** this person's member seed (the link's `me`) */
  me: Uint8Array
}

/** The room's stable id (records, storage): the same across its epochs. */
export function stableIdOf(invite: RoomInvite): string {
  return stableRoomId(invite.room.name, invite.owner)
}

export interface Location {
  /** the invite the fragment carries, or null */
  room: RoomInvite | null
  role: Role | null
  /** why the address could not be used as an invite, for the start screen; null when fine */
  problem: string | null
  /** a room name from a link that cannot join (`?room=`, a version-6 link), to offer a new room of that name */
  namedRoom: string | null
}

export function readLocation(search: string, hash: string): Location {
  const params = new URLSearchParams(search)
  const role = params.get('role')
  const named = normaliseRoom(params.get('room') ?? '')
  let namedRoom = isValidRoom(named) ? named : null
  let room: RoomInvite | null = null
  let problem: string | null = null
  try {
    const invite = memberInviteFromFragment(hash)
    if (invite) room = { room: invite.room, owner: invite.owner, me: invite.me }
  } catch (err) {
    if (err instanceof OldInviteError) {
      namedRoom = err.room
      problem =
        `This invite link to “${err.room}” is from an older version of Murmuration, whose rooms ` +
        'had one link for everyone. Rooms now give each person their own link: ask whoever ' +
        'shared it for a new one, or start a new room.'
    } else {
      problem = `This invite link is broken: ${(err as Error).message}. Ask for the link again.`
    }
  }
  if (room === null && problem === null && namedRoom !== null) {
    problem =
      `This link names room “${namedRoom}” but carries no invite key. Rooms are private: ` +
      'ask whoever shared it for the full invite link (its end, after “#”, holds the key), ' +
      'or start a new room of your own.'
  }
  return { room, role: isRole(role) ? role : null, problem, namedRoom }
}

/**
 * Keeps the address bar in step with the session, so a reload rejoins the
 * same room as the same role and the same member (and keeps the same
 * PeerId, which the runtime stores per tab). The invite goes in the
 * fragment; `?room=` is dropped.
 */
export function writeLocation(invite: RoomInvite, role: Role | null): void {
  const url = new URL(window.location.href)
  url.searchParams.delete('room')
  if (role === null) url.searchParams.delete('role')
  else url.searchParams.set('role', role)
  url.hash = memberInviteFragment(invite)
  window.history.replaceState(null, '', url)
}

/**
 * A link on this page's origin that opens a tab in the room as `role`, as
 * this same person ("open another tab as …"): their tabs stay one member.
 */
export function tabLink(invite: RoomInvite, role: Role): string {
  return memberInviteLink(window.location.origin, invite, role)
}

/** A new room with a fresh secret, owned by a fresh member (this person); `name` defaults to a short random one. */
export function newRoom(name?: string): RoomInvite {
  const fallback = `room-${Array.from(randomBytes(3), (b) => b.toString(36).padStart(2, '0')).join('')}`
  const chosen =
    name !== undefined && isValidRoom(normaliseRoom(name)) ? normaliseRoom(name) : fallback
  const me = newMemberSeed()
  return { room: deriveRoomKey(chosen, newRoomSecret()), owner: deriveMemberKey(me).id, me }
}

/** The same secret and owner under another name (the start screen's name field, before anyone joined). */
export function renamed(invite: RoomInvite, name: string): RoomInvite | null {
  const normalised = normaliseRoom(name)
  return isValidRoom(normalised)
    ? { ...invite, room: deriveRoomKey(normalised, invite.room.secret) }
    : null
}

/** localStorage key of the rooms this browser knows (shared by its tabs). */
const KNOWN_ROOMS_KEY = 'murmuration-rooms'
/** Rooms remembered: enough for anyone's working set; the oldest is forgotten first. */
export const MAX_KNOWN_ROOMS = 20

interface StoredRoom {
  name: string
  key: string
  owner: string
  me: string
  usedAt: number
}

function loadStored(storage: Storage): StoredRoom[] {
  try {
    const value: unknown = JSON.parse(storage.getItem(KNOWN_ROOMS_KEY) ?? '[]')
    if (!Array.isArray(value)) return []
    // entries of version 6 (no owner or member) are not rooms this version can join
    return value.filter(
      (r): r is StoredRoom =>
        typeof r === 'object' &&
        r !== null &&
        typeof (r as StoredRoom).name === 'string' &&
        typeof (r as StoredRoom).key === 'string' &&
        typeof (r as StoredRoom).owner === 'string' &&
        typeof (r as StoredRoom).me === 'string' &&
        typeof (r as StoredRoom).usedAt === 'number',
    )
  } catch {
    return []
  }
}

const sameRoom = (r: StoredRoom, invite: RoomInvite) =>
  r.name === invite.room.name && r.owner === invite.owner && r.me === toBase64url(invite.me)

/** The rooms this browser has joined, most recently used first (broken entries are skipped). */
export function knownRooms(storage: Storage = localStorage): RoomInvite[] {
  const rooms: RoomInvite[] = []
  for (const r of loadStored(storage).sort((a, b) => b.usedAt - a.usedAt)) {
    try {
      const me = fromBase64url(r.me)
      deriveMemberKey(me)
      rooms.push({ room: deriveRoomKey(r.name, decodeSecret(r.key)), owner: r.owner, me })
    } catch {
      // an entry edited by hand or from another version: not a room
    }
  }
  return rooms
}

/** Remembers `invite` as just used (with the epoch key it holds now). */
export function rememberRoom(
  invite: RoomInvite,
  storage: Storage = localStorage,
  now = Date.now(),
): void {
  const entry: StoredRoom = {
    name: invite.room.name,
    key: encodeSecret(invite.room.secret),
    owner: invite.owner,
    me: toBase64url(invite.me),
    usedAt: now,
  }
  const others = loadStored(storage).filter((r) => !sameRoom(r, invite))
  const next = [entry, ...others].sort((a, b) => b.usedAt - a.usedAt).slice(0, MAX_KNOWN_ROOMS)
  try {
    storage.setItem(KNOWN_ROOMS_KEY, JSON.stringify(next))
  } catch {
    // storage full or disabled: the room still works, it is just not listed next time
  }
}

/** Forgets `invite` (its records stay in IndexedDB; the invite link still opens it). */
export function forgetRoom(invite: RoomInvite, storage: Storage = localStorage): void {
  const next = loadStored(storage).filter((r) => !sameRoom(r, invite))
  try {
    storage.setItem(KNOWN_ROOMS_KEY, JSON.stringify(next))
  } catch {
    // as above
  }
}

/** localStorage key of the name this person gives as a room's maker (shared by the origin's tabs). */
const OWN_NAME_KEY = 'murmuration-your-name'

/** The name this person last gave when making a room ('' if none). */
export function loadOwnName(storage: Storage = localStorage): string {
  try {
    return storage.getItem(OWN_NAME_KEY) ?? ''
  } catch {
    return ''
  }
}

export function saveOwnName(name: string, storage: Storage = localStorage): void {
  try {
    storage.setItem(OWN_NAME_KEY, name.slice(0, MAX_MEMBER_NAME))
  } catch {
    // storage disabled: the room's people see the default name ("Owner")
  }
}

/**
 * The name a tab of `invite` gives the runtime for its member: the maker's
 * own name when this person made the room (the owner admits itself with it,
 * the first time its link joins), else none: other people's names are the
 * ones their inviter gave. Undefined means the default ("Owner").
 */
export function ownNameFor(invite: RoomInvite, name: string): string | undefined {
  const trimmed = name.trim().slice(0, MAX_MEMBER_NAME).trim()
  return trimmed !== '' && isOwnersLink(invite) ? trimmed : undefined
}
