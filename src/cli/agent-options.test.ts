import { describe, expect, it } from 'vitest'
import { inviteLink, memberInviteLink } from '../protocol/invite'
import { deriveMemberKey, newMemberSeed } from '../protocol/member-key'
import { deriveRoomKey, newRoomSecret, stableRoomId } from '../protocol/room-key'
import {
  DEFAULT_AGENT_CAPACITY,
  DEFAULT_PLANS_DIR,
  parseAgentArgs,
  toolsLine,
  USAGE,
  UsageError,
  type AgentOptions,
} from './agent-options'
import { DEFAULT_BUDGET } from '../runtime/budget'
import { DEFAULT_CAPACITY } from '../runtime/runtime'

const ROOM = deriveRoomKey('team-1', newRoomSecret())
const SEED = newMemberSeed()
const OWNER = deriveMemberKey(SEED).id
const STABLE = stableRoomId('team-1', OWNER)
const link = (origin: string, role?: string) =>
  memberInviteLink(origin, { room: ROOM, owner: OWNER, me: SEED }, role)
const INVITE = link('http://127.0.0.1:8080')

/** argv with an invite added unless it has one (every run needs one) */
const withInvite = (argv: string[]) =>
  argv.includes('--invite') ? argv : ['--invite', INVITE, ...argv]

function run(argv: string[], env: NodeJS.ProcessEnv = {}): AgentOptions {
  const command = parseAgentArgs(withInvite(argv), env)
  if (command.kind !== 'run') throw new Error(`expected run, got ${command.kind}`)
  return command.options
}

describe('parseAgentArgs', () => {
  it('has defaults that start an offline executor in the room of the invite', () => {
    const options = run([])
    expect(options.role).toBe('executor')
    expect(options.room.id).toBe(ROOM.id)
    expect(options.room.name).toBe('team-1')
    expect(options.model).toEqual({ provider: 'offline', model: 'offline-v1' })
    expect(options.capacity).toBe(DEFAULT_AGENT_CAPACITY)
    expect(options.member).toEqual({ owner: OWNER, seed: SEED })
    expect(options.manage).toBeUndefined()
    // by the stable id: a reset (a new key) keeps the agent's data
    expect(options.data).toBe(`.data/agents/team-1-${STABLE.slice(0, 8)}-executor`)
    expect(options.check).toBe(true)
  })

  it('turns tools on only when asked, for executors only, and names them for the start line', () => {
    expect(run([]).tools).toEqual({ runCode: false, webSearch: false, knowledgeAnswers: false })
    expect(toolsLine(run([]).tools)).toBe('none')
    const options = run(['--run-code', '--web-search', '--answer-from-knowledge'])
    expect(options.tools).toEqual({ runCode: true, webSearch: true, knowledgeAnswers: true })
    expect(toolsLine(options.tools)).toBe(
      'run code, web search, answers from knowledge (unchecked)',
    )
    expect(() => run(['--role', 'scorer', '--run-code'])).toThrow(
      new UsageError('--run-code is for executors, not a scorer'),
    )
    for (const flag of ['--run-code', '--web-search', '--answer-from-knowledge'])
      expect(USAGE).toContain(flag)
  })

  it('takes spending caps and whose goals to work on, with documented defaults', () => {
    expect(run([]).budget).toEqual(DEFAULT_BUDGET)
    expect(run([]).goalsFrom).toBe('anyone')
    const options = run([
      '--max-tokens-per-hour',
      '5000',
      '--max-tokens-per-goal',
      'none',
      '--max-cost-per-goal',
      '0.25',
      '--max-cost-per-hour=none',
      '--goals-from',
      'own',
    ])
    expect(options.budget).toEqual({
      tokensPerHour: 5000,
      tokensPerGoal: null,
      usdPerGoal: 0.25,
      usdPerHour: null,
    })
    expect(options.goalsFrom).toBe('this-browser')
    expect(() => run(['--max-tokens-per-hour', '1.5'])).toThrow(/whole number/)
    expect(() => run(['--max-cost-per-hour', '-1'])).toThrow(UsageError)
    expect(() => run(['--max-cost-per-goal', ''])).toThrow(UsageError)
    expect(() => run(['--goals-from', 'friends'])).toThrow(/anyone or own/)
  })

  it('recognises --help, -h, --version and -v before checking anything else', () => {
    expect(parseAgentArgs(['--role', 'boss', '--help'])).toEqual({ kind: 'help' })
    expect(parseAgentArgs(['-h'])).toEqual({ kind: 'help' })
    expect(parseAgentArgs(['-v'])).toEqual({ kind: 'version' })
  })

  it('takes the key from the environment, by provider', () => {
    expect(run(['--provider', 'anthropic'], { ANTHROPIC_API_KEY: 'a' }).model.apiKey).toBe('a')
    expect(run(['--provider', 'openai'], { OPENAI_API_KEY: 'o' }).model.apiKey).toBe('o')
    expect(
      run(['--provider', 'openai'], { MURMURATION_API_KEY: 'm', OPENAI_API_KEY: 'o' }).model.apiKey,
    ).toBe('m')
    // a local server needs none
    expect(run(['--provider', 'openai-compatible']).model.apiKey).toBeUndefined()
  })

  it('accepts a full, valid command line', () => {
    const options = run(
      [
        '--role=executor',
        '--provider',
        'openai-compatible',
        '--base-url',
        'http://127.0.0.1:11434/v1',
        '--model',
        'qwen3',
        '--capabilities',
        'can_write_text, can_run_code',
        '--capacity',
        '8',
        '--goal',
        '  Plan a trip  ',
        '--rtc-bind',
        '127.0.0.1',
        '--relay',
        '/ip4/127.0.0.1/tcp/9090/ws',
        '--skip-check',
        '--log-calls',
        'calls.jsonl',
      ],
      {},
    )
    expect(options).toMatchObject({
      role: 'executor',
      model: {
        provider: 'openai-compatible',
        model: 'qwen3',
        baseUrl: 'http://127.0.0.1:11434/v1',
      },
      capabilities: ['can_write_text', 'can_run_code'],
      capacity: 8,
      goal: 'Plan a trip',
      rtcBind: '127.0.0.1',
      logCalls: 'calls.jsonl',
      relays: ['/ip4/127.0.0.1/tcp/9090/ws'],
      check: false,
    })
  })

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['stray'], /positional/i],
    [['--role', 'boss'], /--role must be one of/],
    [['--invite', 'http://127.0.0.1:8080/?room=team-1'], /bad --invite/],
    [['--room', 'team-1'], /Unknown option '--room'/],
    [['--provder', 'openai'], /Unknown option '--provder' \(did you mean --provider\?\)/],
    [['--provider', 'gemini'], /--provider must be one of/],
    [['--provider', 'anthropic'], /no API key for anthropic/],
    [['--model', ''], /--model must be 1 to 80/],
    [['--base-url', 'ftp://x'], /--base-url must be an http\(s\) URL/],
    [['--base-url', 'http://x'], /no sense with the offline model/],
    [['--capabilities', 'can_fly'], /unknown "can_fly"/],
    [['--role', 'scorer', '--capabilities', 'can_run_code'], /for executors/],
    [['--capacity', '0'], /--capacity must be a whole number from 1 to 64/],
    [['--capacity', '1.5'], /--capacity/],
    [['--capacity', '65'], /--capacity/],
    [['--app', 'nope'], /--app must be a URL/],
    [['--relay', 'nope'], /--relay "nope" is not a multiaddr/],
    [['--goal', '   '], /--goal must be 1 to/],
    [['--rtc-bind', 'localhost'], /--rtc-bind must be an IP address/],
    [['--data', ''], /--data must name a directory/],
    [['--log-calls', ' '], /--log-calls must name a file/],
    [['--capacity'], /argument missing/],
  ])('%j is a UsageError', (argv, message) => {
    expect(() => parseAgentArgs(withInvite(argv))).toThrow(UsageError)
    expect(() => parseAgentArgs(withInvite(argv))).toThrow(message)
  })

  it('needs an invite: a room name alone joins nothing', () => {
    expect(() => parseAgentArgs([])).toThrow(/--invite is required/)
  })
})

describe('the app, the room and the goal', () => {
  it('takes the app from the invite link: its address is where the relays are', () => {
    const shared = link('http://192.168.1.20:18280', 'executor')
    expect(run(['--invite', shared]).app.href).toBe('http://192.168.1.20:18280/')
    expect(run(['--invite', shared, '--app', 'http://127.0.0.1:9000']).app.href).toBe(
      'http://127.0.0.1:9000/',
    )
    expect(run([]).app.href).toBe('http://127.0.0.1:8080/')
  })

  it('--new-room makes a room of that name with a fresh secret and its maker as owner, on --app or the default app', () => {
    const made = parseAgentArgs(['--new-room', 'trip-2'])
    expect(made.kind).toBe('new-room')
    if (made.kind !== 'new-room') return
    expect(made.invite.room.name).toBe('trip-2')
    // the link printed is the owner's own: its member is the owner
    expect(deriveMemberKey(made.invite.me).id).toBe(made.invite.owner)
    expect(made.app.origin).toBe('http://127.0.0.1:8080')
    const other = parseAgentArgs(['--new-room', 'trip-2', '--app', 'http://10.0.0.5:8080'])
    if (other.kind !== 'new-room') throw new Error(other.kind)
    expect(other.invite.room.id).not.toBe(made.invite.room.id)
    expect(other.invite.owner).not.toBe(made.invite.owner)
    expect(other.app.origin).toBe('http://10.0.0.5:8080')
    expect(() => parseAgentArgs(['--new-room', 'My Room'])).toThrow(/lowercase letters/)
    expect(() => parseAgentArgs(['--new-room', 'a', '--invite', INVITE])).toThrow(/not both/)
  })

  it('refuses a version-6 link (no owner, no member), saying it is from an older version', () => {
    const old = inviteLink('http://127.0.0.1:8080', ROOM)
    expect(() => parseAgentArgs(['--invite', old])).toThrow(/older version of Murmuration/)
  })

  it('takes one owner action: --invite-person, --remove-member or --reset-invite', () => {
    expect(run(['--invite-person', 'Bob']).manage).toEqual({ kind: 'invite-person', name: 'Bob' })
    expect(run(['--remove-member', 'Bob']).manage).toEqual({ kind: 'remove-member', who: 'Bob' })
    expect(run(['--reset-invite', OWNER]).manage).toEqual({ kind: 'reset-invite', who: OWNER })
    expect(() => run(['--invite-person', 'a', '--reset-invite', 'b'])).toThrow(/not several/)
    expect(() => run(['--invite-person', ' '])).toThrow(/1 to 40 characters/)
    expect(() => parseAgentArgs(['--invite-person', 'Bob'])).toThrow(/--invite is required/)
    for (const flag of ['--invite-person', '--remove-member', '--reset-invite'])
      expect(USAGE).toContain(flag)
  })

  it('--wait-for-peer: how long an owner action waits for a peer to take it (default 60 s)', () => {
    expect(run(['--invite-person', 'Bob']).manageWaitMs).toBe(60_000)
    expect(run(['--invite-person', 'Bob', '--wait-for-peer', '0']).manageWaitMs).toBe(0)
    expect(run(['--remove-member', 'Bob', '--wait-for-peer', '90']).manageWaitMs).toBe(90_000)
    expect(() => run(['--invite-person', 'Bob', '--wait-for-peer=-1'])).toThrow(/0 to 3600/)
    expect(() => run(['--invite-person', 'Bob', '--wait-for-peer', '3601'])).toThrow(/0 to 3600/)
    expect(() => run(['--invite-person', 'Bob', '--wait-for-peer', 'soon'])).toThrow(/0 to 3600/)
    expect(() => run(['--wait-for-peer', '5'])).toThrow(/goes with --invite-person/)
    expect(USAGE).toContain('--wait-for-peer')
  })

  it('--co-owner goes with --invite-person; --name only with the owner’s own link or --new-room', () => {
    expect(run(['--invite-person', 'Bob', '--co-owner']).manage).toEqual({
      kind: 'invite-person',
      name: 'Bob',
      coOwner: true,
    })
    expect(() => run(['--co-owner'])).toThrow(/--co-owner goes with --invite-person/)
    expect(() => run(['--remove-member', 'Bob', '--co-owner'])).toThrow(/--co-owner goes with/)
    // INVITE is the owner's own link (its member is the owner)
    expect(run(['--name', '  Ada ']).member.name).toBe('Ada')
    expect(run([]).member.name).toBeUndefined()
    expect(() => run(['--name', ' '])).toThrow(/--name must be 1 to 40 characters/)
    const guest = memberInviteLink('http://127.0.0.1:8080', {
      room: ROOM,
      owner: OWNER,
      me: newMemberSeed(),
    })
    expect(() => parseAgentArgs(['--invite', guest, '--name', 'Eve'])).toThrow(
      /--name is for the owner’s own link/,
    )
    const made = parseAgentArgs(['--new-room', 'trip-3', '--name', 'Ada'])
    expect(made.kind === 'new-room' && made.name).toBe('Ada')
    for (const flag of ['--co-owner', '--name NAME']) expect(USAGE).toContain(flag)
  })

  it('takes --goal with any role, and where its plan goes', () => {
    for (const role of ['observer', 'scorer', 'decomposer', 'executor'])
      expect(run(['--role', role, '--goal', 'Plan a picnic']).goal).toBe('Plan a picnic')
    expect(run([]).plansDir).toBe(DEFAULT_PLANS_DIR)
    expect(run(['--plans', '/tmp/plans']).plansDir).toBe('/tmp/plans')
  })

  it("runs as many LLM calls at once as the runtime's default", () => {
    expect(DEFAULT_AGENT_CAPACITY).toBe(DEFAULT_CAPACITY)
  })
})
