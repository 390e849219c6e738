import { describe, expect, it } from 'vitest'
import { parseInvite } from '../../protocol/invite'
import { deriveRoomKey, newRoomSecret } from '../../protocol/room-key'
import { isValidRoom, normaliseRoom, shareLink } from './url'

describe('room names', () => {
  it('normalises what people type', () => {
    expect(normaliseRoom('  Japan Trip  ')).toBe('japan-trip')
    expect(normaliseRoom('--a__b--')).toBe('a-b')
    expect(isValidRoom('a'.repeat(63))).toBe(true)
    expect(isValidRoom('a'.repeat(64))).toBe(false)
    expect(isValidRoom('-lead')).toBe(false)
  })
})

describe('share link', () => {
  const room = deriveRoomKey('my-room', newRoomSecret())

  it('joins the room as an executor from the given origin, the room in the fragment only', () => {
    const link = new URL(shareLink('http://192.168.1.5:8080', room))
    expect(link.origin).toBe('http://192.168.1.5:8080')
    expect(link.search).toBe('?role=executor')
    expect(link.hash).toMatch(/^#room=my-room&key=[A-Za-z0-9_-]{22}$/)
  })

  it('round-trips through parseInvite', () => {
    const invite = parseInvite(shareLink('http://127.0.0.1:5173', room))
    expect(invite.role).toBe('executor')
    expect(invite.room.id).toBe(room.id)
  })
})
