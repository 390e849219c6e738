import { describe, expect, it } from 'vitest'
import { inviteFragment, memberInviteFragment } from '../../protocol/invite'
import { deriveRoomKey, newRoomSecret } from '../../protocol/room-key'
import {
  forgetRoom,
  knownRooms,
  loadOwnName,
  MAX_KNOWN_ROOMS,
  newRoom,
  ownNameFor,
  readLocation,
  rememberRoom,
  renamed,
  saveOwnName,
} from './invite'

function memoryStorage(): Storage {
  const map = new Map<string, string>()
  return {
    get length() {
      return map.size
    },
    clear: () => map.clear(),
    getItem: (k) => map.get(k) ?? null,
    key: (i) => [...map.keys()][i] ?? null,
    removeItem: (k) => void map.delete(k),
    setItem: (k, v) => void map.set(k, v),
  }
}

const room = newRoom('trip')

describe('the address bar', () => {
  it('reads an invite: room, owner and member from the fragment, role from the query', () => {
    const loc = readLocation('?role=executor', `#${memberInviteFragment(room)}`)
    expect(loc.room?.room.id).toBe(room.room.id)
    expect(loc.room?.owner).toBe(room.owner)
    expect(loc.room?.me).toEqual(room.me)
    expect(loc.role).toBe('executor')
    expect(loc.problem).toBeNull()
  })

  it('says a version-6 link (no owner, no member) is from an older version, and offers its name', () => {
    const old = deriveRoomKey('trip', newRoomSecret())
    const loc = readLocation('?role=executor', `#${inviteFragment(old)}`)
    expect(loc.room).toBeNull()
    expect(loc.namedRoom).toBe('trip')
    expect(loc.problem).toMatch(/from an older version of Murmuration/)
  })

  it('has no room and no problem on a bare address', () => {
    expect(readLocation('', '')).toEqual({ room: null, role: null, problem: null, namedRoom: null })
  })

  it('refuses a room name without a key, saying why, and offers the name for a new room', () => {
    const loc = readLocation('?room=trip&role=executor', '')
    expect(loc.room).toBeNull()
    expect(loc.namedRoom).toBe('trip')
    expect(loc.problem).toMatch(/names room “trip” but carries no invite key/)
  })

  it('explains a broken invite', () => {
    const loc = readLocation('', '#room=trip&key=short')
    expect(loc.room).toBeNull()
    expect(loc.problem).toMatch(/broken/)
  })

  it('ignores an unknown role', () => {
    expect(readLocation('?role=admin', `#${memberInviteFragment(room)}`).role).toBeNull()
  })
})

describe('new rooms', () => {
  it('get a fresh secret each, and a valid default name', () => {
    const a = newRoom()
    const b = newRoom()
    expect(a.room.id).not.toBe(b.room.id)
    expect(a.owner).not.toBe(b.owner)
    expect(a.room.name).toMatch(/^room-[a-z0-9]+$/)
    expect(newRoom('Japan Trip').room.name).toBe('japan-trip')
  })

  it('can be renamed before joining, keeping the secret and the owner', () => {
    const r = renamed(room, 'Other Name')!
    expect(r.room.name).toBe('other-name')
    expect(r.room.secret).toEqual(room.room.secret)
    expect(r.owner).toBe(room.owner)
    expect(renamed(room, '!!!')).toBeNull()
  })
})

describe('known rooms', () => {
  it('are remembered most recent first, once each, and can be forgotten', () => {
    const storage = memoryStorage()
    const other = newRoom('other')
    rememberRoom(room, storage, 1)
    rememberRoom(other, storage, 2)
    rememberRoom(room, storage, 3)
    expect(knownRooms(storage).map((r) => r.room.id)).toEqual([room.room.id, other.room.id])
    expect(knownRooms(storage)[0]!.me).toEqual(room.me)
    forgetRoom(room, storage)
    expect(knownRooms(storage).map((r) => r.room.id)).toEqual([other.room.id])
  })

  it('keep at most MAX_KNOWN_ROOMS and skip broken entries', () => {
    const storage = memoryStorage()
    for (let i = 0; i < MAX_KNOWN_ROOMS + 5; i++) rememberRoom(newRoom(`r${i}`), storage, i)
    expect(knownRooms(storage)).toHaveLength(MAX_KNOWN_ROOMS)
    storage.setItem('murmuration-rooms', '[{"name":"x","key":"bad","usedAt":1}, 5]')
    expect(knownRooms(storage)).toEqual([])
    // a version-6 entry (no owner, no member) is not a room this version joins
    const old = { name: 'x', key: 'AAAAAAAAAAAAAAAAAAAAAA', usedAt: 1 }
    storage.setItem('murmuration-rooms', JSON.stringify([old]))
    expect(knownRooms(storage)).toEqual([])
    storage.setItem('murmuration-rooms', 'not json')
    expect(knownRooms(storage)).toEqual([])
  })
})

describe('the maker’s name', () => {
  it('is kept for the next room, and cut to a member name’s length', () => {
    const storage = memoryStorage()
    expect(loadOwnName(storage)).toBe('')
    saveOwnName('Ada', storage)
    expect(loadOwnName(storage)).toBe('Ada')
    saveOwnName('x'.repeat(60), storage)
    expect(loadOwnName(storage)).toBe('x'.repeat(40))
  })

  it('goes to the runtime only for the room’s maker, trimmed; blank means the default', () => {
    const made = newRoom('trip')
    expect(ownNameFor(made, '  Ada  ')).toBe('Ada')
    expect(ownNameFor(made, '   ')).toBeUndefined()
    // someone else's link to the same room: their name is their inviter's to give
    const guest = { ...made, me: newRoom('trip').me }
    expect(ownNameFor(guest, 'Ada')).toBeUndefined()
  })
})
