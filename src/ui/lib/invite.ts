/**
 * Rooms in the browser: what the address bar says, the rooms this browser
 * knows, and making a new one. The room's name and secret live only in the
 * URL fragment (never sent to a server) and in this browser's localStorage.
 *
 * A link that names a room but carries no key (`?room=trip`, as links of
 * protocol 1 did) cannot join anything: rooms are private, and a name alone
 * is not an invite. The start screen says so and offers to make a new room
 * of that name (a different, private room) or to paste the full invite.
 */
import { inviteFragment, inviteLink, roomFromFragment } from '../../protocol/invite'
import {
  decodeSecret,
  deriveRoomKey,
  encodeSecret,
  newRoomSecret,
  randomBytes,
  type RoomKey,
} from '../../protocol/room-key'
import type { Role } from '../../runtime/types'
import { isRole, isValidRoom, normaliseRoom } from './url'

export interface Location {
  /** the room the fragment names (with its key), or null */
  room: RoomKey | null
  role: Role | null
  /** why the address could not be used as an invite, for the start screen; null when fine */
  problem: string | null
  /** a room name from a keyless link (`?room=`), to offer a new room of that name */
  namedRoom: string | null
}

export function readLocation(search: string, hash: string): Location {
  const params = new URLSearchParams(search)
  const role = params.get('role')
  const named = normaliseRoom(params.get('room') ?? '')
  const namedRoom = isValidRoom(named) ? named : null
  let room: RoomKey | null = null
  let problem: string | null = null
  try {
    room = roomFromFragment(hash)
  } catch (err) {
    problem = `This invite link is broken: ${(err as Error).message}. Ask for the link again.`
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
 * same room as the same role (and keeps the same PeerId, which the runtime
 * stores per tab). The room goes in the fragment; `?room=` is dropped.
 */
export function writeLocation(room: RoomKey, role: Role | null): void {
  const url = new URL(window.location.href)
  url.searchParams.delete('room')
  if (role === null) url.searchParams.delete('role')
  else url.searchParams.set('role', role)
  url.hash = inviteFragment(room)
  window.history.replaceState(null, '', url)
}

/** A link on this page's origin that opens a tab in `room` as `role` ("open another tab as …"). */
export function tabLink(room: RoomKey, role: Role): string {
  return inviteLink(window.location.origin, room, role)
}

/** A new room with a fresh secret; `name` defaults to a short random one. */
export function newRoom(name?: string): RoomKey {
  const fallback = `room-${Array.from(randomBytes(3), (b) => b.toString(36).padStart(2, '0')).join('')}`
  const chosen =
    name !== undefined && isValidRoom(normaliseRoom(name)) ? normaliseRoom(name) : fallback
  return deriveRoomKey(chosen, newRoomSecret())
}

/** The same secret under another name (the start screen's name field, before anyone joined). */
export function renamed(room: RoomKey, name: string): RoomKey | null {
  const normalised = normaliseRoom(name)
  return isValidRoom(normalised) ? deriveRoomKey(normalised, room.secret) : null
}

/** localStorage key of the rooms this browser knows (shared by its tabs). */
const KNOWN_ROOMS_KEY = 'murmuration-rooms'
/** Rooms remembered: enough for anyone's working set; the oldest is forgotten first. */
export const MAX_KNOWN_ROOMS = 20

interface StoredRoom {
  name: string
  key: string
  usedAt: number
}

function loadStored(storage: Storage): StoredRoom[] {
  try {
    const value: unknown = JSON.parse(storage.getItem(KNOWN_ROOMS_KEY) ?? '[]')
    if (!Array.isArray(value)) return []
    return value.filter(
      (r): r is StoredRoom =>
        typeof r === 'object' &&
        r !== null &&
        typeof (r as StoredRoom).name === 'string' &&
        typeof (r as StoredRoom).key === 'string' &&
        typeof (r as StoredRoom).usedAt === 'number',
    )
  } catch {
    return []
  }
}

/** The rooms this browser has joined, most recently used first (broken entries are skipped). */
export function knownRooms(storage: Storage = localStorage): RoomKey[] {
  const rooms: RoomKey[] = []
  for (const r of loadStored(storage).sort((a, b) => b.usedAt - a.usedAt)) {
    try {
      rooms.push(deriveRoomKey(r.name, decodeSecret(r.key)))
    } catch {
      // an entry edited by hand or from another version: not a room
    }
  }
  return rooms
}

/** Remembers `room` as just used. */
export function rememberRoom(
  room: RoomKey,
  storage: Storage = localStorage,
  now = Date.now(),
): void {
  const key = encodeSecret(room.secret)
  const others = loadStored(storage).filter((r) => !(r.name === room.name && r.key === key))
  const next = [{ name: room.name, key, usedAt: now }, ...others]
    .sort((a, b) => b.usedAt - a.usedAt)
    .slice(0, MAX_KNOWN_ROOMS)
  try {
    storage.setItem(KNOWN_ROOMS_KEY, JSON.stringify(next))
  } catch {
    // storage full or disabled: the room still works, it is just not listed next time
  }
}

/** Forgets `room` (its records stay in IndexedDB; the invite link still opens it). */
export function forgetRoom(room: RoomKey, storage: Storage = localStorage): void {
  const key = encodeSecret(room.secret)
  const next = loadStored(storage).filter((r) => !(r.name === room.name && r.key === key))
  try {
    storage.setItem(KNOWN_ROOMS_KEY, JSON.stringify(next))
  } catch {
    // as above
  }
}
