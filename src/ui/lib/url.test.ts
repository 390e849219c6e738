import { describe, expect, it } from 'vitest'
import { parseMemberInvite } from '../../protocol/invite'
import { newRoom } from './invite'
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
  const invite = newRoom('my-room')

  it('joins the room as an executor from the given origin, the invite in the fragment only', () => {
    const link = new URL(shareLink('http://192.168.1.5:8080', invite))
    expect(link.origin).toBe('http://192.168.1.5:8080')
    expect(link.search).toBe('?role=executor')
    expect(link.hash).toMatch(
      /^#room=my-room&key=[A-Za-z0-9_-]{22}&owner=[A-Za-z0-9_-]{43}&me=[A-Za-z0-9_-]{22}$/,
    )
  })

  it('round-trips through parseMemberInvite', () => {
    const parsed = parseMemberInvite(shareLink('http://127.0.0.1:5173', invite))
    expect(parsed.role).toBe('executor')
    expect(parsed.room.id).toBe(invite.room.id)
    expect(parsed.owner).toBe(invite.owner)
    expect(parsed.me).toEqual(invite.me)
  })
})
