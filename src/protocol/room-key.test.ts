import { describe, expect, it } from 'vitest'
import { inviteFragment, inviteLink, parseInvite, roomFromFragment } from './invite'
import {
  decodeSecret,
  deriveRoomKey,
  encodeSecret,
  InvalidRoomKeyError,
  newRoomSecret,
  openRecord,
  ROOM_SECRET_BYTES,
  SEAL_OVERHEAD,
  sealRecord,
} from './room-key'

const secret = Uint8Array.from({ length: ROOM_SECRET_BYTES }, (_, i) => i * 7 + 1)
const room = deriveRoomKey('trip', secret)
const plain = new TextEncoder().encode('\u0001a signed record, as the codec makes it')

describe('room key', () => {
  it('derives the same id and key from the same name and secret, and a public id that is not the secret', () => {
    const again = deriveRoomKey('trip', secret.slice())
    expect(again.id).toBe(room.id)
    expect(again.recordKey).toEqual(room.recordKey)
    expect(room.id).toMatch(/^[0-9a-f]{32}$/)
    expect(room.id).not.toContain(Buffer.from(secret).toString('hex'))
    expect(room.recordKey).not.toEqual(secret)
  })

  it('gives another room for another secret or another name', () => {
    const other = deriveRoomKey('trip', newRoomSecret())
    expect(other.id).not.toBe(room.id)
    expect(deriveRoomKey('trip-2', secret).id).not.toBe(room.id)
  })

  it('refuses short secrets and bad names', () => {
    expect(() => deriveRoomKey('trip', secret.slice(0, 8))).toThrow(InvalidRoomKeyError)
    expect(() => deriveRoomKey('Trip!', secret)).toThrow(InvalidRoomKeyError)
  })

  it('makes fresh secrets of 128 bits from getRandomValues', () => {
    const a = newRoomSecret()
    expect(a.length).toBe(16)
    expect(newRoomSecret()).not.toEqual(a)
  })
})

describe('sealed records', () => {
  it('round-trips, with a fresh nonce each time', () => {
    const a = sealRecord(room, plain)
    const b = sealRecord(room, plain)
    expect(a.length).toBe(plain.length + SEAL_OVERHEAD)
    expect(a).not.toEqual(b)
    expect(openRecord(room, a)).toEqual({ ok: true, plain })
    expect(openRecord(room, b)).toEqual({ ok: true, plain })
  })

  it('does not show the plain text', () => {
    const sealed = Buffer.from(sealRecord(room, plain))
    expect(sealed.includes(Buffer.from('signed record'))).toBe(false)
  })

  it('rejects the wrong key: another secret, or the same secret under another name', () => {
    const sealed = sealRecord(room, plain)
    expect(openRecord(deriveRoomKey('trip', newRoomSecret()), sealed)).toEqual({
      ok: false,
      reason: 'bad-seal',
    })
    expect(openRecord(deriveRoomKey('trap', secret), sealed)).toMatchObject({ ok: false })
  })

  it('rejects any tampered byte, and truncation', () => {
    const sealed = sealRecord(room, plain)
    for (let i = 1; i < sealed.length; i += 5) {
      const bad = sealed.slice()
      bad[i] = bad[i]! ^ 0x40
      expect(openRecord(room, bad), `byte ${i}`).toEqual({ ok: false, reason: 'bad-seal' })
    }
    expect(openRecord(room, sealed.subarray(0, sealed.length - 1))).toMatchObject({ ok: false })
  })

  it('rejects plain records and junk without throwing', () => {
    expect(openRecord(room, plain)).toEqual({ ok: false, reason: 'not-sealed' })
    expect(openRecord(room, new Uint8Array())).toEqual({ ok: false, reason: 'not-sealed' })
    expect(openRecord(room, new Uint8Array(100).fill(2))).toEqual({ ok: false, reason: 'bad-seal' })
  })
})

describe('invite links', () => {
  it('carry the name and secret in the fragment only', () => {
    const link = inviteLink('http://192.168.1.20:8080', room, 'executor')
    const url = new URL(link)
    expect(url.search).toBe('?role=executor')
    expect(url.hash).toBe(`#${inviteFragment(room)}`)
    expect(url.hash).toContain(encodeSecret(secret))
    const parsed = parseInvite(link)
    expect(parsed.role).toBe('executor')
    expect(parsed.room.id).toBe(room.id)
    expect(parsed.room.name).toBe('trip')
  })

  it('round-trips secrets as base64url', () => {
    const s = newRoomSecret()
    expect(decodeSecret(encodeSecret(s))).toEqual(s)
    expect(encodeSecret(s)).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(() => decodeSecret('abc')).toThrow(InvalidRoomKeyError)
    expect(() => decodeSecret('not base64!')).toThrow(InvalidRoomKeyError)
    // one spelling only: a last character with its unused low bits set is refused
    const text = encodeSecret(new Uint8Array(16))
    expect(text.at(-1)).toBe('A')
    expect(() => decodeSecret(`${text.slice(0, -1)}B`)).toThrow(InvalidRoomKeyError)
  })

  it('refuses a link that names a room without its key, with a clear reason', () => {
    expect(() => parseInvite('http://h:8080/?room=trip&role=executor')).toThrow(
      /carries no invite key/,
    )
    expect(() => parseInvite('http://h:8080/#room=trip')).toThrow(/has no key/)
    expect(() => parseInvite('not a link')).toThrow(InvalidRoomKeyError)
  })

  it('reads no room from an empty fragment', () => {
    expect(roomFromFragment('')).toBeNull()
    expect(roomFromFragment('#')).toBeNull()
  })
})
