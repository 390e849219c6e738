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
import { MAX_GOAL_TEXT, MAX_MODEL_LABEL } from '../protocol/limits'
import type { RoomKey } from '../protocol/room-key'
import { roleSchema } from '../protocol/schemas'
import type { Role } from '../protocol/records'
import { DEFAULT_BUDGET, type BudgetLimits } from '../runtime/budget'
import { NO_TOOLS, type GoalSource, type ToolConsent } from '../runtime/types'
import { EXIT_USAGE, UsageError, usageErrorFrom } from './options'
import { isIceUrl, TURN_SECRET_ENV } from '../../relay/ice'
import {
  DEFAULT_AGENT_CAPACITY,
  DEFAULT_APP_URL,
  DEFAULT_MODELS,
  DEFAULT_PLANS_DIR,
  MAX_AGENT_CAPACITY,
  PROVIDERS,
} from './agent-defaults'
import {
  manageAction,
  manageWaitMs,
  newRoomInvite,
  ownNameFor,
  type ManageAction,
} from './agent-member-options'
import { parseAllowTool, parseMcpCommand, parseMcpUrl, type ToolAllow } from './agent-mcp-options'
import type { McpServerSpec } from '../runtime/mcp/types'

export { EXIT_USAGE, UsageError }
export {
  DEFAULT_AGENT_CAPACITY,
  DEFAULT_APP_URL,
  DEFAULT_MODELS,
  DEFAULT_PLANS_DIR,
  MAX_AGENT_CAPACITY,
  type ManageAction,
}
export { USAGE } from './agent-usage'

export interface AgentOptions {
  role: Role
  /** --app (else the invite link's address), when no --relay was given: where to fetch /relay.json */
  app: URL
  relays: string[]
  /** --turn / --turn-secret, or --ice: the agent's own STUN/TURN servers (agent-ice.ts) */
  ice?: AgentIce
  room: RoomKey
  /** the room's owner and this person's member seed (the link's `owner` and `me`); the owner's --name */
  member: { owner: string; seed: Uint8Array; name?: string }
  /** --invite-person, --remove-member, --reset-invite: do it, print, exit */
  manage?: ManageAction
  /** with `manage`: how long to wait for a peer to take its record (--wait-for-peer) */
  manageWaitMs?: number
  /** the data dir asked for (before the lock picks a free one) */
  data: string
  model: ModelConfig
  capabilities?: Capability[]
  capacity: number
  /** what the executor may do with tools (--run-code, --web-search, --answer-from-knowledge) */
  tools: ToolConsent
  /** executors: MCP servers (--mcp, --mcp-url) and the tools turned on (--allow-tool) */
  mcp: { servers: McpServerSpec[]; allow: ToolAllow[] }
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
  /** --new-room: print the owner's invite link of a new room on `app` (and --name for the commands shown) */
  | { kind: 'new-room'; invite: Omit<MemberInvite, 'stable'>; name?: string; app: URL }
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
    'wait-for-peer': { type: 'string' },
    name: { type: 'string' },
    'co-owner': { type: 'boolean', default: false },
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
    mcp: { type: 'string', multiple: true },
    'mcp-url': { type: 'string', multiple: true },
    'allow-tool': { type: 'string', multiple: true },
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
    const made = newRoomInvite({ ...values, 'new-room': values['new-room'] })
    return { kind: 'new-room', ...made, app: httpUrl(values.app ?? DEFAULT_APP_URL, 'app') }
  }
  const manage = manageAction(values)
  const manageWait = manageWaitMs(values, manage)

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
  const name = ownNameFor(values, invite)
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

  const mcp = {
    servers: [
      ...(values.mcp ?? []).map(parseMcpCommand),
      ...(values['mcp-url'] ?? []).map(parseMcpUrl),
    ],
    allow: (values['allow-tool'] ?? []).map(parseAllowTool),
  }
  const mcpFlag = values.mcp
    ? 'mcp'
    : values['mcp-url']
      ? 'mcp-url'
      : values['allow-tool']
        ? 'allow-tool'
        : null
  if (mcpFlag && role.data !== 'executor')
    throw new UsageError(`--${mcpFlag} is for executors, not a ${role.data}`)
  if (mcp.allow.length > 0 && mcp.servers.length === 0)
    throw new UsageError(
      '--allow-tool turns on a tool of a server: give the server with --mcp or --mcp-url',
    )

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
      member: { owner: invite.owner, seed: invite.me, ...(name !== undefined ? { name } : {}) },
      ...(manage ? { manage, manageWaitMs: manageWait } : {}),
      data,
      model,
      ...(capabilities ? { capabilities } : {}),
      capacity,
      tools: role.data === 'executor' ? tools : { ...NO_TOOLS },
      mcp,
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
