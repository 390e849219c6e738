import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  iceConfig,
  iceFromOptions,
  isIceUrl,
  turnCredential,
  TURN_CREDENTIAL_TTL_S,
  TURN_SECRET_ENV,
} from './ice'
import { parseRelayArgs, parseStartArgs } from './options'

const NOW = Date.UTC(2026, 11, 2, 9, 0, 0)

describe('TURN credentials (coturn use-auth-secret)', () => {
  it('username is the expiry time and a label, credential its HMAC-SHA1 under the secret', () => {
    const c = turnCredential('s3cret', NOW, 600)
    const expiry = NOW / 1000 + 600
    expect(c.username).toBe(`${expiry}:murmuration`)
    expect(c.credential).toBe(createHmac('sha1', 's3cret').update(c.username).digest('base64'))
    expect(c.expiresAt).toBe(expiry * 1000)
  })

  it('matches an independent HMAC-SHA1 (openssl dgst -sha1 -hmac north | base64)', () => {
    const c = turnCredential('north', (1433895918506 - 600) * 1000, 600, '1234')
    expect(c.username).toBe('1433895918506:1234')
    expect(c.credential).toBe('Wun/kow5Ghgc0d79z1CltHZXOXY=')
  })

  it('another secret or time gives another credential', () => {
    const a = turnCredential('one', NOW)
    expect(turnCredential('two', NOW).credential).not.toBe(a.credential)
    expect(turnCredential('one', NOW + 1000).username).not.toBe(a.username)
  })
})

describe('/ice.json', () => {
  it('STUN as is, TURN with a fresh credential that expires after the TTL', () => {
    const config = iceConfig(
      {
        urls: ['stun:203.0.113.1:3478', 'turn:203.0.113.1:3478', 'turns:turn.example.org'],
        secret: 'x',
      },
      NOW,
    )
    // the turn: server's STUN side once, not the turns: one (browsers speak no STUN over TLS)
    expect(config.iceServers[0]).toEqual({ urls: ['stun:203.0.113.1:3478'] })
    expect(config.iceServers[1]).toMatchObject({
      urls: ['turn:203.0.113.1:3478', 'turns:turn.example.org'],
      username: `${NOW / 1000 + TURN_CREDENTIAL_TTL_S}:murmuration`,
    })
    expect(config.expiresAt).toBe(NOW + TURN_CREDENTIAL_TTL_S * 1000)
  })

  it('no servers, no credential', () => {
    expect(iceConfig({ urls: [] }, NOW)).toEqual({ iceServers: [], expiresAt: null })
    expect(iceConfig({ urls: ['stun:h'], secret: 'x' }, NOW).expiresAt).toBeNull()
    expect(iceConfig({ urls: ['turn:h:3478?transport=tcp'] }, NOW).iceServers[0]).toEqual({
      urls: ['stun:h:3478'],
    })
  })

  it('the secret itself never appears', () => {
    const body = JSON.stringify(iceConfig({ urls: ['turn:h:3478'], secret: 'topsecret' }, NOW))
    expect(body).not.toContain('topsecret')
  })
})

describe('--turn URLs', () => {
  it('takes stun:, turn: and turns: with host, port and transport', () => {
    const ok = [
      'stun:203.0.113.1',
      'turn:203.0.113.1:3478',
      'turn:turn.example.org:3478?transport=tcp',
      'turns:turn.example.org:5349',
      'turn:[2001:db8::1]:3478',
    ]
    for (const url of ok) expect(isIceUrl(url), url).toBe(true)
  })

  it('refuses anything else', () => {
    for (const bad of [
      'http://h',
      'turn:',
      'turn:user:pass@h',
      'turn:h:3478?transport=sctp',
      'h:3478',
    ]) {
      expect(isIceUrl(bad), bad).toBe(false)
    }
  })
})

describe('--turn and --turn-secret', () => {
  it('npm start and npm run relay take them; /ice.json then has fresh credentials', () => {
    for (const parse of [parseStartArgs, parseRelayArgs]) {
      const command = parse([
        '--turn',
        'turn:203.0.113.1:3478',
        '--turn',
        'stun:h',
        '--turn-secret',
        's',
      ])
      if (command.kind !== 'run') throw new Error('expected run')
      expect(command.options.turn).toEqual(['turn:203.0.113.1:3478', 'stun:h'])
      const ice = iceFromOptions(command.options.turn, command.options['turn-secret'], {})!
      expect(ice().iceServers[1]?.credential).toBeDefined()
    }
  })

  it('refuses a bad URL, and a secret for no TURN server, in one line', () => {
    expect(() => parseStartArgs(['--turn', 'http://h'])).toThrow(/--turn must be stun:HOST/)
    expect(() => parseRelayArgs(['--turn-secret', 's'])).toThrow(/--turn-secret needs a --turn/)
    expect(() => parseStartArgs(['--turn', 'stun:h', '--turn-secret', 's'])).toThrow(
      /needs a --turn/,
    )
  })

  it('the secret may come from the environment instead (out of sight of ps)', () => {
    const ice = iceFromOptions(['turn:h'], undefined, { [TURN_SECRET_ENV]: 'from-env' })!
    const server = ice().iceServers.find((s) => s.urls[0] === 'turn:h')!
    expect(server.credential).toBe(
      createHmac('sha1', 'from-env').update(server.username!).digest('base64'),
    )
    expect(iceFromOptions([], 'x', {})).toBeUndefined()
  })
})
