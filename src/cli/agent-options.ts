/**
 * The headless agent's command line: parsing and checking every option
 * before anything starts, so a mistake is one line on stderr and exit code
 * 2, never a stack trace or a failure minutes later.
 *
 * Pure apart from reading nothing: argv and env come in, options come out.
 */
import { isIP } from 'node:net'
import { parseArgs } from 'node:util'
import { multiaddr } from '@multiformats/multiaddr'
import { CAPABILITIES, type Capability, type ModelConfig } from '../llm/types'
import { OldInviteError, parseMemberInvite, type MemberInvite } from '../protocol/invite'
import { MAX_GOAL_TEXT, MAX_MEMBER_NAME, MAX_MODEL_LABEL } from '../protocol/limits'
import { deriveMemberKey, memberPublicKey, newMemberSeed } from '../protocol/member-key'
import { deriveRoomKey, newRoomSecret, ROOM_NAME_PATTERN, type RoomKey } from '../protocol/room-key'
import { roleSchema } from '../protocol/schemas'
import type { Role } from '../protocol/records'
import { DEFAULT_BUDGET, type BudgetLimits } from '../runtime/budget'
import { NO_TOOLS, type GoalSource, type ToolConsent } from '../runtime/types'
import { EXIT_USAGE, UsageError, usageErrorFrom } from './options'
import { isIceUrl, TURN_SECRET_ENV } from '../../relay/ice'

export { EXIT_USAGE, UsageError }

/** Where `npm start` serves the app (and /relay.json) by default. */
export const DEFAULT_APP_URL = 'http://127.0.0.1:8080'

/**
 * LLM calls one agent runs at once unless told: the runtime's default, as a
 * tab's (runtime.ts DEFAULT_CAPACITY; a test keeps them equal). Written out
 * here so that reading the command line loads no network code: --help and a
 * mistake answer at once.
 */
export const DEFAULT_AGENT_CAPACITY = 4

/** Where a --goal's final plan is written unless told (Markdown, one file a goal). */
export const DEFAULT_PLANS_DIR = '.data/plans'

/**
 * Most LLM calls one agent may run at once. A presence beat advertises the
 * load (at most 1 000 on the wire); far beyond a few dozen, a provider's rate
 * limit is hit first, so a larger figure is almost certainly a typo.
 */
export const MAX_AGENT_CAPACITY = 64

/** The model each provider uses when --model is not given. */
export const DEFAULT_MODELS: Record<ModelConfig['provider'], string> = {
  offline: 'offline-v1',
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-4.1-mini',
  'openai-compatible': 'llama3.1',
}

const PROVIDERS = Object.keys(DEFAULT_MODELS) as ModelConfig['provider'][]

export const USAGE = `Usage: murmuration-agent [options]      (or: npm run agent -- [options])

       murmuration-agent --new-room NAME [--app URL]
       murmuration-agent --invite OWNER-LINK --invite-person NAME | --remove-member WHO | --reset-invite WHO

A headless Murmuration peer: the same role code as a browser tab, joining the
same swarm through the relay. It prints what it does, one line each (claims,
splits, scores, results, rejected replies, rate limits); an observer prints the
plan tree as it grows and the final plan.

Options:
  --role R            decomposer | scorer | executor | observer (default executor)
  --invite LINK       your invite link to the room (the app's Invite panel, or
                      --new-room; quote it: its secret is after the '#'). A link
                      is one person's: everything opened from it (tabs, agents)
                      is that one member. A room name alone joins nothing
  --new-room NAME     make a new room (lowercase letters, digits, dashes) that you
                      own, print your (the owner's) invite link on the app and exit
  --invite-person NAME  owner: admit a new person to the room of --invite, print
                      their own invite link and exit
  --remove-member WHO owner: remove a member (their name or member id): the room
                      moves to a new key that reaches everyone else; exit
  --reset-invite WHO  owner: reset a person's invite link (name or member id): the
                      old link finds nothing new; print their new link and exit
  --app URL           the app started by \`npm start\`, to find its relays (every one it
                      lists) and STUN/TURN servers (default: the invite link's
                      address; else ${DEFAULT_APP_URL})
  --relay MULTIADDR   register with this relay instead of asking --app (repeatable:
                      with several, the room outlives any one of them)
  --turn URL          a STUN/TURN server for WebRTC (repeatable: stun:, turn:, turns:),
                      instead of the app's; with --relay the agent has none otherwise
  --turn-secret S     coturn's static-auth-secret: the agent makes its own short-lived
                      TURN credentials (better: $${TURN_SECRET_ENV}, out of \`ps\`)
  --ice URL           fetch STUN/TURN servers from this /ice.json (e.g. another app's)
  --data DIR          identity and records (default .data/agents/<room>-<id>-<role>); a
                      directory in use by another agent is not shared: this one
                      takes DIR.2, DIR.3, … with its own identity
  --provider P        offline | anthropic | openai | openai-compatible (default offline)
  --model NAME        model id (default per provider: ${PROVIDERS.map((p) => `${p} ${DEFAULT_MODELS[p]}`).join(', ')})
  --base-url URL      provider endpoint; for openai-compatible the default is
                      http://localhost:11434/v1 (Ollama)
  --capabilities C,…  executor: ${CAPABILITIES.join(', ')} (default all)
  --capacity N        LLM calls at once, 1..${MAX_AGENT_CAPACITY} (default ${DEFAULT_AGENT_CAPACITY})
  --run-code          executor: let the model run the JavaScript it writes, in this
                      agent's sandbox (a worker thread: no network, no files, a time
                      and memory limit); needed to offer can_run_code. Off by default
  --web-search        executor: let the model search the web with the provider's own
                      search, on your key (Anthropic, OpenAI only; $10 per 1,000
                      searches on top of tokens); needed to offer can_query_api.
                      Off by default
  --answer-from-knowledge  executor: offer can_query_api without a search: such
                      answers come from the model's memory and say they were not
                      checked live. Off by default
  --goal TEXT         submit this goal once connected (any role; an observer then
                      publishes this goal and nothing else), print when it is
                      done and write its final plan (Markdown) to --plans
  --plans DIR         where --goal's final plan is written (default ${DEFAULT_PLANS_DIR})
  --max-tokens-per-goal N   caps on what this agent spends with its key: tokens
  --max-tokens-per-hour N   (input + output) and estimated cost in US dollars,
  --max-cost-per-goal USD   per root goal and per sliding hour; "none" for no
  --max-cost-per-hour USD   cap (defaults ${DEFAULT_BUDGET.tokensPerGoal}, ${DEFAULT_BUDGET.tokensPerHour}, ${DEFAULT_BUDGET.usdPerGoal}, ${DEFAULT_BUDGET.usdPerHour}).
                      An hourly cap reached pauses the role; a per-goal cap stops
                      work on that goal. A model with no known price: cost caps
                      cannot be enforced, token caps still are
  --goals-from WHO    anyone (default): work on any member's goals; own: only on
                      goals this agent submitted
  --rtc-bind IP       local address for WebRTC candidates (tests: 127.0.0.1)
  --log-calls FILE    append every LLM call this agent makes to FILE, one JSON
                      object a line: prompts, replies, errors, tokens, cost, time
                      (never the API key; the file is yours, nothing sends it)
  --skip-check        do not make the one cheap LLM call that checks key and model at
                      start (it waits up to 10 minutes for a local server that
                      loads its model, and says so every 30 s)
  --quiet             print only errors, the start line and a --goal's end
  -h, --help          print this help and exit
  -v, --version       print the version and exit

The API key comes from the environment, never the command line (so it stays
out of shell history and process lists): MURMURATION_API_KEY, or
ANTHROPIC_API_KEY / OPENAI_API_KEY for those providers. It goes only to the
provider. The network's own chatter (links, syncs, dials) shows only with
DEBUG=murmuration:* (and libp2p:* for the stack itself).
Ctrl-C stops cleanly; a second Ctrl-C exits at once.`

/** An owner's one-off change to the room's members (then the agent exits). */
export type ManageAction =
  | { kind: 'invite-person'; name: string }
  | { kind: 'remove-member'; who: string }
  | { kind: 'reset-invite'; who: string }

export interface AgentOptions {
  role: Role
  /** --app (else the invite link's address), when no --relay was given: where to fetch /relay.json */
  app: URL
  relays: string[]
  /** --turn / --turn-secret, or --ice: the agent's own STUN/TURN servers (agent-ice.ts) */
  ice?: AgentIce
  room: RoomKey
  /** the room's owner and this person's member seed (the link's `owner` and `me`) */
  member: { owner: string; seed: Uint8Array }
  /** --invite-person, --remove-member, --reset-invite: do it, print, exit */
  manage?: ManageAction
  /** the data dir asked for (before the lock picks a free one) */
  data: string
  model: ModelConfig
  capabilities?: Capability[]
  capacity: number
  /** what the executor may do with tools (--run-code, --web-search, --answer-from-knowledge) */
  tools: ToolConsent
  budget: BudgetLimits
  goalsFrom: GoalSource
  goal?: string
  /** --plans: where the final plan of --goal is written */
  plansDir: string
  rtcBind?: string
  /** --log-calls: the JSON Lines file every LLM call is appended to */
  logCalls?: string
  check: boolean
  quiet: boolean
}

/** Where an agent's STUN/TURN servers come from, when not from --app. */
export type AgentIce =
  { kind: 'servers'; urls: string[]; secret?: string } | { kind: 'url'; url: URL }

export type AgentCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  /** --new-room: print the owner's invite link of a new room on `app` */
  | { kind: 'new-room'; invite: Omit<MemberInvite, 'stable'>; app: URL }
  | { kind: 'run'; options: AgentOptions }

function httpUrl(value: string, option: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(`--${option} must be a URL such as http://127.0.0.1:8080, got "${value}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--${option} must be an http(s) URL, got "${value}"`)
  return url
}

function apiKeyFrom(provider: ModelConfig['provider'], env: NodeJS.ProcessEnv): string | undefined {
  const key =
    env.MURMURATION_API_KEY ??
    (provider === 'anthropic' ? env.ANTHROPIC_API_KEY : undefined) ??
    (provider === 'openai' ? env.OPENAI_API_KEY : undefined)
  return key?.trim() || undefined
}

/** The tools an agent's start line names: "run code, web search", or "none". */
export function toolsLine(tools: ToolConsent): string {
  const on = [
    tools.runCode ? 'run code' : '',
    tools.webSearch ? 'web search' : '',
    tools.knowledgeAnswers ? 'answers from knowledge (unchecked)' : '',
  ].filter(Boolean)
  return on.length > 0 ? on.join(', ') : 'none'
}

/** Parses and checks argv (without node and the script); throws UsageError. */
export function parseAgentArgs(argv: string[], env: NodeJS.ProcessEnv = {}): AgentCommand {
  const options = {
    role: { type: 'string', default: 'executor' },
    app: { type: 'string' },
    'new-room': { type: 'string' },
    'invite-person': { type: 'string' },
    'remove-member': { type: 'string' },
    'reset-invite': { type: 'string' },
    plans: { type: 'string', default: DEFAULT_PLANS_DIR },
    relay: { type: 'string', multiple: true },
    turn: { type: 'string', multiple: true },
    'turn-secret': { type: 'string' },
    ice: { type: 'string' },
    invite: { type: 'string' },
    data: { type: 'string' },
    provider: { type: 'string', default: 'offline' },
    model: { type: 'string' },
    'base-url': { type: 'string' },
    capabilities: { type: 'string' },
    capacity: { type: 'string', default: String(DEFAULT_AGENT_CAPACITY) },
    goal: { type: 'string' },
    'max-tokens-per-goal': { type: 'string' },
    'max-tokens-per-hour': { type: 'string' },
    'max-cost-per-goal': { type: 'string' },
    'max-cost-per-hour': { type: 'string' },
    'goals-from': { type: 'string', default: 'anyone' },
    'rtc-bind': { type: 'string' },
    'log-calls': { type: 'string' },
    'skip-check': { type: 'boolean', default: false },
    'run-code': { type: 'boolean', default: false },
    'web-search': { type: 'boolean', default: false },
    'answer-from-knowledge': { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
    version: { type: 'boolean', short: 'v', default: false },
  } as const
  let values
  try {
    ;({ values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options }))
  } catch (err) {
    // one line, with the closest option for a misspelled one
    throw usageErrorFrom(err, Object.keys(options))
  }
  if (values.help) return { kind: 'help' }
  if (values.version) return { kind: 'version' }
  if (values['new-room'] !== undefined) {
    const name = values['new-room'].trim()
    if (!ROOM_NAME_PATTERN.test(name))
      throw new UsageError(
        `--new-room must be 1 to 63 lowercase letters, digits and dashes (not first), got "${name}"`,
      )
    if (values.invite !== undefined) throw new UsageError('give --new-room or --invite, not both')
    // the maker owns the room: the link printed is the owner's own
    const me = newMemberSeed()
    return {
      kind: 'new-room',
      invite: { room: deriveRoomKey(name, newRoomSecret()), owner: deriveMemberKey(me).id, me },
      app: httpUrl(values.app ?? DEFAULT_APP_URL, 'app'),
    }
  }
  const manage = manageAction(values)

  const role = roleSchema.safeParse(values.role)
  if (!role.success)
    throw new UsageError(
      `--role must be one of ${roleSchema.options.join(', ')}, got "${values.role}"`,
    )
  if (values.invite === undefined)
    throw new UsageError("--invite is required: the room's invite link (the app's Invite panel)")
  let invite: MemberInvite
  try {
    invite = parseMemberInvite(values.invite)
  } catch (err) {
    if (err instanceof OldInviteError)
      throw new UsageError(
        `--invite is a link from an older version of Murmuration (one link for everyone): ask the room's owner for your own link, or make a room with --new-room`,
      )
    throw new UsageError(`bad --invite: ${(err as Error).message}`)
  }
  const room = invite.room
  // the link names the app it was made on: that is where its relays are
  const app = httpUrl(values.app ?? inviteApp(values.invite), 'app')
  const provider = values.provider as ModelConfig['provider']
  if (!PROVIDERS.includes(provider))
    throw new UsageError(`--provider must be one of ${PROVIDERS.join(', ')}, got "${provider}"`)
  const modelName = values.model ?? DEFAULT_MODELS[provider]
  if (!modelName.trim() || modelName.length > MAX_MODEL_LABEL)
    throw new UsageError(`--model must be 1 to ${MAX_MODEL_LABEL} characters`)
  const baseUrl =
    values['base-url'] === undefined ? undefined : httpUrl(values['base-url'], 'base-url')
  if (baseUrl && provider === 'offline')
    throw new UsageError('--base-url makes no sense with the offline model; pick a --provider')
  const apiKey = apiKeyFrom(provider, env)
  if (!apiKey && (provider === 'anthropic' || provider === 'openai'))
    throw new UsageError(
      `no API key for ${provider}: set ${provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY'} or MURMURATION_API_KEY`,
    )
  const model: ModelConfig = {
    provider,
    model: modelName,
    ...(apiKey ? { apiKey } : {}),
    ...(baseUrl ? { baseUrl: values['base-url']!.trim() } : {}),
  }

  let capabilities: Capability[] | undefined
  if (values.capabilities !== undefined) {
    capabilities = values.capabilities.split(',').map((c) => {
      const name = c.trim()
      if (!CAPABILITIES.includes(name as Capability))
        throw new UsageError(
          `--capabilities: unknown "${name}" (known: ${CAPABILITIES.join(', ')})`,
        )
      return name as Capability
    })
    if (role.data !== 'executor')
      throw new UsageError(`--capabilities is for executors, not a ${role.data}`)
  }

  const tools: ToolConsent = {
    runCode: values['run-code'],
    webSearch: values['web-search'],
    knowledgeAnswers: values['answer-from-knowledge'],
  }
  const toolFlag = Object.entries({
    'run-code': tools.runCode,
    'web-search': tools.webSearch,
    'answer-from-knowledge': tools.knowledgeAnswers,
  }).find(([, on]) => on)?.[0]
  if (toolFlag && role.data !== 'executor')
    throw new UsageError(`--${toolFlag} is for executors, not a ${role.data}`)

  const capacity = Number(values.capacity)
  if (!/^\d+$/.test(values.capacity) || capacity < 1 || capacity > MAX_AGENT_CAPACITY)
    throw new UsageError(
      `--capacity must be a whole number from 1 to ${MAX_AGENT_CAPACITY}, got "${values.capacity}"`,
    )

  const cap = (
    option: string,
    value: string | undefined,
    fallback: number | null,
    whole: boolean,
  ) => {
    if (value === undefined) return fallback
    if (value.trim() === 'none') return null
    const n = Number(value)
    if (!value.trim() || !Number.isFinite(n) || n < 0 || (whole && !Number.isInteger(n)))
      throw new UsageError(
        `--${option} must be ${whole ? 'a whole number' : 'a number'} of 0 or more, or "none", got "${value}"`,
      )
    return n
  }
  const budget: BudgetLimits = {
    tokensPerGoal: cap(
      'max-tokens-per-goal',
      values['max-tokens-per-goal'],
      DEFAULT_BUDGET.tokensPerGoal,
      true,
    ),
    tokensPerHour: cap(
      'max-tokens-per-hour',
      values['max-tokens-per-hour'],
      DEFAULT_BUDGET.tokensPerHour,
      true,
    ),
    usdPerGoal: cap(
      'max-cost-per-goal',
      values['max-cost-per-goal'],
      DEFAULT_BUDGET.usdPerGoal,
      false,
    ),
    usdPerHour: cap(
      'max-cost-per-hour',
      values['max-cost-per-hour'],
      DEFAULT_BUDGET.usdPerHour,
      false,
    ),
  }
  const goalsFromFlag = values['goals-from']
  if (goalsFromFlag !== 'anyone' && goalsFromFlag !== 'own')
    throw new UsageError(`--goals-from must be anyone or own, got "${goalsFromFlag}"`)
  // an agent's "own" goals are this runtime's "this browser's tabs": itself
  const goalsFrom: GoalSource = goalsFromFlag === 'own' ? 'this-browser' : 'anyone'

  const relays = values.relay ?? []
  for (const addr of relays) {
    try {
      multiaddr(addr)
    } catch {
      throw new UsageError(
        `--relay "${addr}" is not a multiaddr (e.g. /ip4/127.0.0.1/tcp/9090/ws/p2p/12D3…)`,
      )
    }
  }
  const ice = agentIce(values.turn ?? [], values['turn-secret'], values.ice, env)

  const goal = values.goal?.trim()
  if (values.goal !== undefined && (!goal || goal.length > MAX_GOAL_TEXT))
    throw new UsageError(`--goal must be 1 to ${MAX_GOAL_TEXT} characters`)
  const rtcBind = values['rtc-bind']
  if (rtcBind !== undefined && isIP(rtcBind) === 0)
    throw new UsageError(`--rtc-bind must be an IP address, got "${rtcBind}"`)
  const logCalls = values['log-calls']
  if (logCalls !== undefined && !logCalls.trim())
    throw new UsageError('--log-calls must name a file')
  // by the room's stable id: a reset (a new epoch key) keeps the agent's records and identity
  const data = values.data ?? `.data/agents/${room.name}-${invite.stable.slice(0, 8)}-${role.data}`
  if (!data.trim()) throw new UsageError('--data must name a directory')
  if (!values.plans.trim()) throw new UsageError('--plans must name a directory')

  return {
    kind: 'run',
    options: {
      role: role.data,
      app,
      relays,
      ...(ice ? { ice } : {}),
      room,
      member: { owner: invite.owner, seed: invite.me },
      ...(manage ? { manage } : {}),
      data,
      model,
      ...(capabilities ? { capabilities } : {}),
      capacity,
      tools: role.data === 'executor' ? tools : { ...NO_TOOLS },
      budget,
      goalsFrom,
      ...(goal ? { goal } : {}),
      plansDir: values.plans,
      ...(rtcBind ? { rtcBind } : {}),
      ...(logCalls ? { logCalls } : {}),
      check: !values['skip-check'],
      quiet: values.quiet,
    },
  }
}

/** --invite-person, --remove-member or --reset-invite, checked; at most one of them. */
function manageAction(values: {
  'invite-person'?: string
  'remove-member'?: string
  'reset-invite'?: string
  'new-room'?: string
}): ManageAction | undefined {
  const given = (['invite-person', 'remove-member', 'reset-invite'] as const).filter(
    (flag) => values[flag] !== undefined,
  )
  if (given.length > 1) throw new UsageError(`give one of --${given.join(', --')}, not several`)
  const flag = given[0]
  if (flag === undefined) return undefined
  const value = values[flag]!.trim()
  const id = flag !== 'invite-person' && memberPublicKey(value) !== null
  if (!value || (value.length > MAX_MEMBER_NAME && !id))
    throw new UsageError(
      `--${flag} must be a name of 1 to ${MAX_MEMBER_NAME} characters, or a member id`,
    )
  return flag === 'invite-person' ? { kind: flag, name: value } : { kind: flag, who: value }
}

/** The app an invite link was made on (its origin), or the default app for any other link. */
function inviteApp(link: string): string {
  const url = new URL(link.trim())
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : DEFAULT_APP_URL
}

/** --turn, --turn-secret (or its variable) and --ice, checked; undefined when none is given. */
function agentIce(
  turn: string[],
  secretFlag: string | undefined,
  iceUrl: string | undefined,
  env: NodeJS.ProcessEnv,
): AgentIce | undefined {
  for (const url of turn)
    if (!isIceUrl(url))
      throw new UsageError(
        `--turn "${url}" is not a STUN/TURN URL (e.g. turn:turn.example.org:3478, stun:host, turns:host:5349)`,
      )
  if (iceUrl !== undefined) {
    if (turn.length > 0) throw new UsageError('give --turn or --ice, not both')
    if (secretFlag !== undefined) throw new UsageError('--turn-secret goes with --turn, not --ice')
    return { kind: 'url', url: httpUrl(iceUrl, 'ice') }
  }
  if (secretFlag !== undefined && !secretFlag.trim())
    throw new UsageError('--turn-secret must not be empty')
  if (turn.length === 0) {
    if (secretFlag !== undefined) throw new UsageError('--turn-secret needs --turn turn:HOST:PORT')
    return undefined
  }
  const secret = secretFlag ?? (env[TURN_SECRET_ENV]?.trim() || undefined)
  return { kind: 'servers', urls: turn, ...(secret ? { secret } : {}) }
}
