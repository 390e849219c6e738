/**
 * A headless peer: the same role code as a tab, joining the same swarm.
 *
 *   npm run agent -- --role scorer [--app http://127.0.0.1:8080 | --relay <multiaddr>]
 *                    --invite '<invite link>' [--data .data/agents/<role>]
 *                    [--provider offline|anthropic|openai|openai-compatible] [--model NAME]
 *                    [--base-url URL] [--capabilities can_write_text,can_run_code] [--capacity 4]
 *                    [--goal "text"] [--rtc-bind 127.0.0.1]
 *
 * The API key is read from the environment (MURMURATION_API_KEY, or
 * ANTHROPIC_API_KEY / OPENAI_API_KEY by provider), never from the command
 * line, so it does not end up in shell history or process listings. It goes
 * only to the provider. Identity and records are kept in --data.
 *
 * The room comes from its invite link (Invite in the app; quote it: the
 * secret is after the '#'). A room name alone cannot join a room.
 */
import { parseArgs } from 'node:util'
import { CAPABILITIES, type Capability, type ModelConfig } from '../llm/types'
import { fetchRelayInfo, pickRelayAddrs } from '../net/relay-info'
import { parseInvite } from '../protocol/invite'
import { roleSchema } from '../protocol/schemas'
import { createNodeRuntime } from '../runtime/node'

const { values } = parseArgs({
  options: {
    role: { type: 'string', default: 'executor' },
    app: { type: 'string', default: 'http://127.0.0.1:8080' },
    relay: { type: 'string', multiple: true },
    invite: { type: 'string' },
    data: { type: 'string' },
    provider: { type: 'string', default: 'offline' },
    model: { type: 'string' },
    'base-url': { type: 'string' },
    capabilities: { type: 'string' },
    capacity: { type: 'string', default: '4' },
    goal: { type: 'string' },
    'rtc-bind': { type: 'string' },
    quiet: { type: 'boolean', default: false },
  },
})

function fail(message: string): never {
  console.error(`agent: ${message}`)
  process.exit(2)
}

const role = roleSchema.safeParse(values.role).data ?? fail(`unknown role ${values.role}`)
const room = (() => {
  if (!values.invite) fail("pass --invite <link>: the room's invite link (the app's Invite panel)")
  try {
    return parseInvite(values.invite).room
  } catch (err) {
    return fail(`bad --invite: ${(err as Error).message}`)
  }
})()
const provider = values.provider as ModelConfig['provider']
if (!['offline', 'anthropic', 'openai', 'openai-compatible'].includes(provider))
  fail(`unknown provider ${provider}`)
const DEFAULT_MODELS: Record<ModelConfig['provider'], string> = {
  offline: 'offline-v1',
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-4.1-mini',
  'openai-compatible': 'llama3.1',
}
const apiKey =
  process.env.MURMURATION_API_KEY ??
  (provider === 'anthropic' ? process.env.ANTHROPIC_API_KEY : undefined) ??
  (provider === 'openai' ? process.env.OPENAI_API_KEY : undefined)
const model: ModelConfig = {
  provider,
  model: values.model ?? DEFAULT_MODELS[provider],
  ...(apiKey ? { apiKey } : {}),
  ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
}
const capabilities = values.capabilities
  ?.split(',')
  .map((c) => c.trim())
  .map((c) =>
    CAPABILITIES.includes(c as Capability) ? (c as Capability) : fail(`unknown capability ${c}`),
  )

const relays = values.relay?.length
  ? values.relay
  : pickRelayAddrs(
      await fetchRelayInfo(new URL('/relay.json', values.app).href).catch(() =>
        fail(
          `cannot reach the app at ${values.app} (is npm start running? or pass --relay <multiaddr>)`,
        ),
      ),
      new URL(values.app).hostname,
    )

const runtime = await createNodeRuntime({
  room,
  role,
  relays,
  model,
  capacity: Number(values.capacity),
  ...(capabilities ? { capabilities } : {}),
  dataDir: values.data ?? `.data/agents/${room.name}-${room.id.slice(0, 8)}-${role}`,
  ...(values['rtc-bind'] ? { rtcBindAddress: values['rtc-bind'] } : {}),
  log: values.quiet ? () => {} : (message) => console.log(`  ${message}`),
})
console.log(
  `Murmuration ${role} ${runtime.peerId} in room "${room.name}" (${model.provider}/${model.model})`,
)

let lastPrinted = ''
runtime.on('activity', (activity) => {
  if (values.quiet) return
  const key = (entry: { at: number; text: string }) => `${entry.at}:${entry.text}`
  const fresh = []
  for (const entry of activity.recent) {
    if (key(entry) === lastPrinted) break
    fresh.push(entry)
  }
  if (fresh.length) lastPrinted = key(fresh[0]!)
  for (const entry of fresh.reverse())
    console.log(`${new Date(entry.at).toLocaleTimeString()} ${entry.text}`)
})
if (values.goal) {
  // wait for the mesh so the goal is heard at once (it would reach late peers by sync anyway)
  setTimeout(() => {
    runtime.submitGoal(values.goal!).then((id) => console.log(`submitted goal ${id}`))
  }, 3_000)
}

let stopping = false
async function stop(): Promise<void> {
  if (stopping) return
  stopping = true
  await runtime.stop()
  process.exit(0)
}
process.on('SIGINT', () => void stop())
process.on('SIGTERM', () => void stop())
