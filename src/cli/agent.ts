/**
 * A headless peer: the same role code as a tab, joining the same swarm.
 *
 *   npm run agent -- --help        (or `murmuration-agent --help` once linked)
 *
 * Options are checked before anything starts (agent-options.ts: one line on
 * stderr, exit code 2). Then the data dir is locked (data-dir-lock.ts: a
 * second agent with the same options takes its own identity), the key and
 * model are checked with one cheap call (model-check.ts), and the peer
 * joins. Errors go to stderr, progress to stdout. Ctrl-C stops cleanly; a
 * second Ctrl-C exits at once.
 *
 * Exit codes: 0 stopped, 1 could not start (app, relay, model), 2 usage,
 * 130 forced by a second Ctrl-C.
 */
import { readFileSync } from 'node:fs'
import { fetchRelayInfo, pickRelayAddrs } from '../net/relay-info'
import { agentIceLine, agentRtcConfiguration } from './agent-ice'
import { createNodeRuntime } from '../runtime/node'
import {
  EXIT_USAGE,
  parseAgentArgs,
  toolsLine,
  USAGE,
  UsageError,
  type AgentOptions,
} from './agent-options'
import { claimDataDir, type DataDirLock } from './data-dir-lock'
import { checkModel, ModelCheckError } from './model-check'
import { hitLines, limitsLine, spentLine, unpricedWarning } from './budget-lines'
import { priceKnown } from '../llm/pricing'

/** Could not start: the app, relay or model is not usable as configured. */
const EXIT_START_FAILED = 1
/** 128 + SIGINT, what a shell reports for a process killed by Ctrl-C. */
const EXIT_FORCED = 130
/**
 * Wait before submitting --goal, so the mesh has formed and the goal is
 * heard at once (late peers would still get it by sync).
 */
const GOAL_DELAY_MS = 3_000

function fail(message: string, code = EXIT_START_FAILED): never {
  process.stderr.write(`agent: ${message}\n`)
  process.exit(code)
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  return pkg.version
}

async function relaysFor(options: AgentOptions): Promise<string[]> {
  if (options.relays.length) return options.relays
  try {
    const info = await fetchRelayInfo(new URL('/relay.json', options.app).href)
    return pickRelayAddrs(info, options.app.hostname)
  } catch {
    return fail(
      `cannot reach the app at ${options.app.origin} (is npm start running? or pass --relay <multiaddr>)`,
    )
  }
}

async function checkModelOrExit(options: AgentOptions): Promise<void> {
  const say = (line: string): void => {
    if (!options.quiet) console.log(line)
  }
  if (options.model.provider === 'offline') {
    say('  LLM: the built-in offline model (canned answers, no key, no cost): not a real LLM')
    return
  }
  if (!options.check)
    return say(`  LLM: ${options.model.provider}/${options.model.model} (not checked)`)
  try {
    const check = await checkModel(options.model)
    if (check.status === 'ok') say(`  LLM: ${check.label} answered in ${check.ms} ms`)
    else if (check.status === 'rate-limited')
      process.stderr.write(`agent: warning: ${check.label} is rate-limiting: ${check.message}\n`)
  } catch (err) {
    if (!(err instanceof ModelCheckError)) throw err
    const hint =
      err.kind === 'auth'
        ? ' (check the API key in the environment)'
        : err.kind === 'unreachable'
          ? ' (check --base-url and that the server is running)'
          : ''
    fail(`the model check failed: ${err.message}${hint}; --skip-check starts anyway`)
  }
}

async function main(): Promise<void> {
  let command
  try {
    command = parseAgentArgs(process.argv.slice(2), process.env)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    fail(`${err.message} (see --help)`, EXIT_USAGE)
  }
  if (command.kind === 'help') return void console.log(USAGE)
  if (command.kind === 'version') return void console.log(version())
  const options = command.options

  await checkModelOrExit(options)
  const relays = await relaysFor(options)
  let lock: DataDirLock
  try {
    lock = claimDataDir(options.data)
  } catch (err) {
    return fail((err as Error).message)
  }
  process.on('exit', () => lock.release())
  if (lock.slot > 1)
    console.log(`  ${options.data} is in use by another agent: this one uses ${lock.dir}`)

  const iceSource = agentRtcConfiguration(options, (m) => process.stderr.write(`agent: ${m}\n`))
  const runtime = await createNodeRuntime({
    room: options.room,
    role: options.role,
    relays,
    model: options.model,
    capacity: options.capacity,
    budget: options.budget,
    goalsFrom: options.goalsFrom,
    tools: options.tools,
    ...(options.capabilities ? { capabilities: options.capabilities } : {}),
    dataDir: lock.dir,
    // the tabs of this machine link to us over a WebSocket, sparing us WebRTC's timers
    tabLinks: true,
    ...(options.rtcBind ? { rtcBindAddress: options.rtcBind } : {}),
    // --turn / --ice, or the app that named the relay (as for tabs): agent-ice.ts
    ...(iceSource ? { rtcConfiguration: iceSource } : {}),
    ...(options.logCalls ? { callLogFile: options.logCalls } : {}),
    log: options.quiet ? () => {} : (message) => console.log(`  ${message}`),
  })
  const { model } = options
  console.log(
    `Murmuration ${options.role} ${runtime.peerId} in room "${options.room.name}" (${model.provider}/${model.model})${options.role === 'executor' ? `; tools: ${toolsLine(options.tools)}` : ''}`,
  )
  // what the executor will not offer, and why (tools off, or a model without them)
  for (const [capability, why] of Object.entries(runtime.activity().tools?.withheld ?? {}))
    console.log(`  Does not offer ${capability}: ${why}`)

  if (options.ice) console.log(`  ${agentIceLine(options)}`)
  if (options.role !== 'observer') {
    console.log(`  ${limitsLine(options.budget)}`)
    const warning = unpricedWarning(
      options.budget,
      priceKnown(options.model.provider, options.model.model),
    )
    if (warning) process.stderr.write(`agent: warning: ${warning}\n`)
    if (options.goalsFrom !== 'anyone') console.log('  Works only on goals this agent submits')
  }

  // a cap reached is said once, even with --quiet: the agent stopped spending
  let capsShown = new Map<string, string>()
  runtime.on('activity', (activity) => {
    const hits = hitLines(activity)
    for (const [key, line] of hits) if (!capsShown.has(key)) console.log(`agent: ${line}`)
    for (const key of capsShown.keys())
      if (!hits.has(key)) console.log(`agent: a cap no longer holds work back (${key})`)
    capsShown = hits
  })

  let lastPrinted = ''
  runtime.on('activity', (activity) => {
    if (options.quiet) return
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
  if (options.goal) {
    const goal = options.goal
    setTimeout(() => {
      runtime.submitGoal(goal).then(
        (id) => console.log(`submitted goal ${id}`),
        (err: unknown) =>
          process.stderr.write(`agent: could not submit the goal: ${String(err)}\n`),
      )
    }, GOAL_DELAY_MS)
  }

  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // the second Ctrl-C: the person wants out now
      process.stderr.write('agent: forced exit\n')
      process.exit(EXIT_FORCED)
    }
    stopping = true
    if (signal === 'SIGINT' && !options.quiet)
      process.stderr.write('agent: stopping… (Ctrl-C again to force)\n')
    if (options.role !== 'observer') console.log(`  ${spentLine(runtime.activity())}`)
    runtime.stop().then(
      () => process.exit(0),
      (err: unknown) => fail(`error while stopping: ${String(err)}`),
    )
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main().catch((err: unknown) => {
  // anything unexpected still ends as one line, with the stack only when debugging
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err)
  if (process.env.DEBUG) console.error(err)
  fail(message)
})
