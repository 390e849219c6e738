import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { memberInviteLink } from '../protocol/invite'
import { deriveMemberKey, newMemberSeed } from '../protocol/member-key'
import { deriveRoomKey, newRoomSecret } from '../protocol/room-key'
import { parseAgentArgs, USAGE, UsageError, type AgentOptions } from './agent-options'
import { agentIceLine, agentRtcConfiguration } from './agent-ice'

const ROOM = deriveRoomKey('team-1', newRoomSecret())
const SEED = newMemberSeed()
const INVITE = memberInviteLink('http://127.0.0.1:8080', {
  room: ROOM,
  owner: deriveMemberKey(SEED).id,
  me: SEED,
})
const RELAY = '/ip4/127.0.0.1/tcp/9090/ws/p2p/12D3KooWRxxZhDnJXeYGJzHdGAeoZVnEzGfEdH2apythykaiR75S'

function run(argv: string[], env: NodeJS.ProcessEnv = {}): AgentOptions {
  const command = parseAgentArgs(['--invite', INVITE, ...argv], env)
  if (command.kind !== 'run') throw new Error(`expected run, got ${command.kind}`)
  return command.options
}

describe('agent --turn, --turn-secret, --ice', () => {
  it('parses repeatable --turn with a secret from the flag or the environment', () => {
    expect(run([]).ice).toBeUndefined()
    expect(run(['--turn', 'turn:127.0.0.1:3478', '--turn', 'stun:127.0.0.1']).ice).toEqual({
      kind: 'servers',
      urls: ['turn:127.0.0.1:3478', 'stun:127.0.0.1'],
    })
    expect(run(['--turn', 'turn:h:3478', '--turn-secret', 's3']).ice).toEqual({
      kind: 'servers',
      urls: ['turn:h:3478'],
      secret: 's3',
    })
    const fromEnv = run(['--turn', 'turns:h:5349'], { MURMURATION_TURN_SECRET: 'env-secret' })
    expect(fromEnv.ice).toEqual({ kind: 'servers', urls: ['turns:h:5349'], secret: 'env-secret' })
    expect(run(['--ice', 'https://app.example/ice.json']).ice).toEqual({
      kind: 'url',
      url: new URL('https://app.example/ice.json'),
    })
    expect(USAGE).toContain('--turn URL')
    expect(USAGE).toContain('MURMURATION_TURN_SECRET')
  })

  it.each([
    [['--turn', 'http://h:3478'], /--turn "http:\/\/h:3478" is not a STUN\/TURN URL/],
    [['--turn', 'turn:user:pw@h'], /is not a STUN\/TURN URL/],
    [['--turn-secret', 's'], /--turn-secret needs --turn/],
    [['--turn', 'turn:h', '--turn-secret', ' '], /--turn-secret must not be empty/],
    [['--turn', 'turn:h', '--ice', 'http://a/ice.json'], /--turn or --ice, not both/],
    [['--ice', 'ftp://a/ice.json'], /--ice must be an http\(s\) URL/],
  ])('refuses %j in one line', (argv, message) => {
    expect(() => run(argv)).toThrow(UsageError)
    expect(() => run(argv)).toThrow(message)
  })

  it('makes fresh coturn credentials from the secret, for each new connection', async () => {
    const options = run(['--relay', RELAY, '--turn', 'turn:127.0.0.1:3478', '--turn-secret', 'k'])
    const source = agentRtcConfiguration(options, () => {})
    expect(typeof source).toBe('function')
    const config = await (source as () => Promise<RTCConfiguration>)()
    const turn = config.iceServers?.find((s) => String(s.urls).startsWith('turn:'))
    expect(config.iceServers?.[0]?.urls).toEqual(['stun:127.0.0.1:3478'])
    const username = turn?.username as string
    expect(username).toMatch(/^\d+:murmuration$/)
    expect(Number(username.split(':')[0]) * 1000).toBeGreaterThan(Date.now() + 3_600_000)
    expect(turn?.credential).toBe(createHmac('sha1', 'k').update(username).digest('base64'))
    expect(agentIceLine(options)).toContain('turn:127.0.0.1:3478 (TURN credentials made here')
  })

  it('with --relay and neither: no ICE servers; without --relay: the app’s /ice.json', async () => {
    expect(agentRtcConfiguration(run(['--relay', RELAY]), () => {})).toBeUndefined()
    const asked: string[] = []
    const fakeFetch = async (url: string | URL | Request) => {
      asked.push(String(url))
      return new Response(JSON.stringify({ iceServers: [{ urls: ['stun:a'] }], expiresAt: null }))
    }
    globalThis.fetch = Object.assign(fakeFetch, { preconnect: () => {} }) as typeof fetch
    try {
      const fromApp = agentRtcConfiguration(run(['--app', 'http://127.0.0.1:8080']), () => {})
      expect(await (fromApp as () => Promise<RTCConfiguration>)()).toEqual({
        iceServers: [{ urls: ['stun:a'] }],
      })
      const fromIce = agentRtcConfiguration(
        run(['--relay', RELAY, '--ice', 'http://127.0.0.1:9/ice.json']),
        () => {},
      )
      await (fromIce as () => Promise<RTCConfiguration>)()
      expect(asked).toEqual(['http://127.0.0.1:8080/ice.json', 'http://127.0.0.1:9/ice.json'])
    } finally {
      // vitest restores nothing by itself: give the real fetch back
      globalThis.fetch = realFetch
    }
  })
})

const realFetch = globalThis.fetch
