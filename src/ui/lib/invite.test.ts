import { describe, expect, it } from 'vitest'
import { inviteFragment } from '../../protocol/invite'
import { deriveRoomKey, newRoomSecret } from '../../protocol/room-key'
import {
  forgetRoom,
  knownRooms,
  MAX_KNOWN_ROOMS,
  newRoom,
  readLocation,
  rememberRoom,
  renamed,
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

const room = deriveRoomKey('trip', newRoomSecret())

describe('the address bar', () => {
  it('reads an invite: room from the fragment, role from the query', () => {
    const loc = readLocation('?role=executor', `#${inviteFragment(room)}`)
    expect(loc.room?.id).toBe(room.id)
    expect(loc.role).toBe('executor')
    expect(loc.problem).toBeNull()
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
    expect(readLocation('?role=admin', `#${inviteFragment(room)}`).role).toBeNull()
  })
})

describe('new rooms', () => {
  it('get a fresh secret each, and a valid default name', () => {
    const a = newRoom()
    const b = newRoom()
    expect(a.id).not.toBe(b.id)
    expect(a.name).toMatch(/^room-[a-z0-9]+$/)
    expect(newRoom('Japan Trip').name).toBe('japan-trip')
  })

  it('can be renamed before joining, keeping the secret', () => {
    const r = renamed(room, 'Other Name')!
    expect(r.name).toBe('other-name')
    expect(r.secret).toEqual(room.secret)
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
    expect(knownRooms(storage).map((r) => r.id)).toEqual([room.id, other.id])
    forgetRoom(room, storage)
    expect(knownRooms(storage).map((r) => r.id)).toEqual([other.id])
  })

  it('keep at most MAX_KNOWN_ROOMS and skip broken entries', () => {
    const storage = memoryStorage()
    for (let i = 0; i < MAX_KNOWN_ROOMS + 5; i++) rememberRoom(newRoom(`r${i}`), storage, i)
    expect(knownRooms(storage)).toHaveLength(MAX_KNOWN_ROOMS)
    storage.setItem('murmuration-rooms', '[{"name":"x","key":"bad","usedAt":1}, 5]')
    expect(knownRooms(storage)).toEqual([])
    storage.setItem('murmuration-rooms', 'not json')
    expect(knownRooms(storage)).toEqual([])
  })
})
