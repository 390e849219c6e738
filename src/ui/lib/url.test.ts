import { describe, expect, it } from 'vitest'
import { DEFAULT_ROOM, isValidRoom, normaliseRoom, readLocation, shareLink } from './url'

describe('room and role from the address', () => {
  it('reads a share link', () => {
    expect(readLocation('?room=trip-2025&role=executor')).toEqual({
      room: 'trip-2025',
      role: 'executor',
    })
  })

  it('defaults to the lobby and no role', () => {
    expect(readLocation('')).toEqual({ room: DEFAULT_ROOM, role: null })
  })

  it('ignores an unknown role and tidies a hand-typed room', () => {
    expect(readLocation('?room=My%20Room!&role=admin')).toEqual({ room: 'my-room', role: null })
  })

  it('falls back to the lobby for a room that cannot be made valid', () => {
    expect(readLocation('?room=%F0%9F%90%A6').room).toBe(DEFAULT_ROOM)
  })

  it('normalises what people type', () => {
    expect(normaliseRoom('  Japan Trip  ')).toBe('japan-trip')
    expect(normaliseRoom('--a__b--')).toBe('a-b')
    expect(isValidRoom('a'.repeat(63))).toBe(true)
    expect(isValidRoom('a'.repeat(64))).toBe(false)
    expect(isValidRoom('-lead')).toBe(false)
  })
})

describe('share link', () => {
  it('joins the room as an executor from the given origin', () => {
    expect(shareLink('http://192.168.1.5:8080', 'lobby')).toBe(
      'http://192.168.1.5:8080/?room=lobby&role=executor',
    )
  })

  it('round-trips through readLocation', () => {
    const link = new URL(shareLink('http://127.0.0.1:5173', 'my-room'))
    expect(readLocation(link.search)).toEqual({ room: 'my-room', role: 'executor' })
  })
})
