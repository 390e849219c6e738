import { describe, expect, it } from 'vitest'
import {
  inviteLink,
  isOwnersLink,
  memberInviteFromFragment,
  memberInviteLink,
  OldInviteError,
  parseMemberInvite,
} from './invite'
import { deriveMemberKey } from './member-key'
import { deriveRoomKey, InvalidRoomKeyError, stableRoomId } from './room-key'

const room = deriveRoomKey(
  'trip',
  Uint8Array.from({ length: 16 }, (_, i) => i * 3),
)
const owner = deriveMemberKey(Uint8Array.from({ length: 16 }, (_, i) => 200 - i))
const me = Uint8Array.from({ length: 16 }, (_, i) => i + 40)

describe('version-7 invite links', () => {
  it("tell the owner's own link (its seed is the owner's) from anyone else's", () => {
    const ownerSeed = Uint8Array.from({ length: 16 }, (_, i) => 200 - i)
    expect(isOwnersLink({ owner: owner.id, me: ownerSeed })).toBe(true)
    expect(isOwnersLink({ owner: owner.id, me })).toBe(false)
  })

  it('carry room, key, owner and me in the fragment, the role in the query', () => {
    const link = memberInviteLink(
      'http://192.168.1.20:8080',
      { room, owner: owner.id, me },
      'executor',
    )
    const url = new URL(link)
    expect(url.search).toBe('?role=executor')
    expect([...new URLSearchParams(url.hash.slice(1)).keys()]).toEqual([
      'room',
      'key',
      'owner',
      'me',
    ])
    const parsed = parseMemberInvite(link)
    expect(parsed.role).toBe('executor')
    expect(parsed.room.id).toBe(room.id)
    expect(parsed.room.recordKey).toEqual(room.recordKey)
    expect(parsed.owner).toBe(owner.id)
    expect(parsed.me).toEqual(me)
    expect(parsed.stable).toBe(stableRoomId('trip', owner.id))
  })

  it('a version-6 link (room and key only) is reported as from an older version', () => {
    const old = inviteLink('http://h:8080', room, 'executor')
    expect(() => parseMemberInvite(old)).toThrow(OldInviteError)
    try {
      parseMemberInvite(old)
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidRoomKeyError)
      expect((err as OldInviteError).room).toBe('trip')
      expect((err as Error).message).toMatch(/older version/)
    }
  })

  it('refuses a broken owner or member seed, and reads no room from an empty fragment', () => {
    const fragment = new URL(memberInviteLink('http://h:8080', { room, owner: owner.id, me })).hash
    expect(memberInviteFromFragment(fragment)?.owner).toBe(owner.id)
    const params = new URLSearchParams(fragment.slice(1))
    const broken = (key: string, value: string | null) => {
      const copy = new URLSearchParams(params)
      if (value === null) copy.delete(key)
      else copy.set(key, value)
      return () => memberInviteFromFragment(copy.toString())
    }
    expect(broken('owner', 'nope')).toThrow(InvalidRoomKeyError)
    expect(broken('owner', null)).toThrow(/no valid owner/)
    expect(broken('me', null)).toThrow(/no valid member key/)
    expect(broken('me', 'AAAA')).toThrow(/no valid member key/)
    // a second spelling of the same seed (low bits of the last character set)
    const seed = params.get('me')!
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    expect(broken('me', seed.slice(0, -1) + alphabet[alphabet.indexOf(seed.at(-1)!) + 1]!)).toThrow(
      /no valid member key/,
    )
    expect(memberInviteFromFragment('')).toBeNull()
  })
})
