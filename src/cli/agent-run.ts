/**
 * The headless agent's run, once its command line is read (agent.ts): the
 * data dir is locked (data-dir-lock.ts: a second agent with the same
 * options takes its own identity), the key and model are checked with one
 * cheap call (model-check.ts), and the peer joins. Errors go to stderr,
 * progress to stdout, one line each. Ctrl-C stops cleanly; a second Ctrl-C
 * exits at once.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { fetchRelayInfo, pickRelayAddrs } from '../net/relay-info'
import { exportMarkdown } from '../plan/export'
import type { PlanTree } from '../plan/tree'
import { createNodeRuntime } from '../runtime/node'
import type { PeerRuntime } from '../runtime/types'
import { toolsInUse } from '../runtime/tools'
import { priceKnown } from '../llm/pricing'
import { agentIceLine, agentRtcConfiguration } from './agent-ice'
import { toolsLine, type AgentOptions } from './agent-options'
import { activityLine, callLines, earlierLines, terminalNetLogger } from './agent-lines'
import { hitLines, limitsLine, spentLine, unpricedWarning } from './budget-lines'
import { claimDataDir, type DataDirLock } from './data-dir-lock'
import { goalEndLine, planPath } from './goal-done'
import { checkModel, ModelCheckError, waitingLine } from './model-check'
import { clock, OBSERVER_PRINT_INTERVAL_MS, TreePrinter } from './observer-print'
import { leavesHeldBy, settled } from './tree-lines'
import { exitWhenRemoved, manage } from './agent-members'
import { AgentMcpError, startAgentMcp } from './agent-mcp'
import { UsageError } from './agent-options'
import { EXIT_USAGE } from './options'

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

async function relaysFor(options: AgentOptions): Promise<string[]> {
  if (options.relays.length) return options.relays
  try {
    const info = await fetchRelayInfo(new URL('/relay.json', options.app).href)
    return pickRelayAddrs(info, options.app.hostname)
  } catch {
    return fail(
      `cannot reach the app at ${options.app.origin} (is npm start running? or pass --app URL or --relay <multiaddr>)`,
    )
  }
}

async function checkModelOrExit(options: AgentOptions): Promise<void> {
  const say = (line: string): void => {
    if (!options.quiet) console.log(line)
  }
  if (options.role === 'observer') return say('  LLM: none (an observer makes no LLM calls)')
  if (options.model.provider === 'offline') {
    say('  LLM: the built-in offline model (canned answers, no key, no cost): not a real LLM')
    return
  }
  const label = `${options.model.provider}/${options.model.model}`
  if (!options.check) return say(`  LLM: ${label} (not checked)`)
  say(`  checking ${label} …`)
  try {
    const check = await checkModel(options.model, {}, undefined, {
      onWaiting: (seconds) => say(waitingLine(label, seconds)),
    })
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

/** The observer's tree, printed as it changes, at most once an OBSERVER_PRINT_INTERVAL_MS. */
function printTree(runtime: PeerRuntime): void {
  const printer = new TreePrinter()
  let pending: PlanTree | null = null
  let timer: NodeJS.Timeout | undefined
  let lastAt = 0
  const flush = () => {
    timer = undefined
    if (!pending) return
    const tree = pending
    pending = null
    lastAt = Date.now()
    const lines = printer.step(tree, lastAt)
    if (lines.length) console.log(lines.join('\n'))
  }
  runtime.on('tree', (tree) => {
    pending = tree
    if (timer) return
    timer = setTimeout(flush, Math.max(0, lastAt + OBSERVER_PRINT_INTERVAL_MS - Date.now()))
    timer.unref()
  })
}

/** Submits --goal once the mesh had time to form; says when it ends and writes its plan. */
function submitGoal(runtime: PeerRuntime, goal: string, options: AgentOptions): void {
  let goalId: string | null = null
  let ended = false
  const check = (tree: PlanTree) => {
    const view = goalId === null ? undefined : tree.goals.find((g) => g.id === goalId)
    if (ended || !view || !settled(view)) return
    ended = true
    const path = planPath(options.plansDir, view)
    try {
      mkdirSync(options.plansDir, { recursive: true })
      writeFileSync(path, exportMarkdown(tree, view.id))
      console.log(`${clock(Date.now())} ${goalEndLine(view, path)}`)
    } catch (err) {
      process.stderr.write(`agent: could not write the plan to ${path}: ${String(err)}\n`)
    }
  }
  runtime.on('tree', check)
  setTimeout(() => {
    runtime.submitGoal(goal).then(
      (id) => {
        goalId = id
        console.log(`${clock(Date.now())} submitted goal ${id}: “${goal}”`)
        check(runtime.tree())
      },
      (err: unknown) =>
        process.stderr.write(
          `agent: could not submit the goal: ${err instanceof Error ? err.message : String(err)}\n`,
        ),
    )
  }, GOAL_DELAY_MS)
}

export async function runAgent(options: AgentOptions): Promise<void> {
  // an owner's one-off action makes no LLM call; its stdout is its result alone (for `$(…)`)
  if (!options.manage) await checkModelOrExit(options)
  const note = (line: string) =>
    options.manage ? process.stderr.write(`${line}\n`) : console.log(line)
  const relays = await relaysFor(options)
  let lock: DataDirLock
  try {
    lock = claimDataDir(options.data)
  } catch (err) {
    return fail((err as Error).message)
  }
  process.on('exit', () => lock.release())
  if (lock.slot > 1) note(`  ${options.data} is in use by another agent: this one uses ${lock.dir}`)

  const say = (line: string) => {
    if (!options.quiet) note(line)
  }
  // the person's MCP servers (issue 57), connected before the agent joins: a broken one stops it here
  let mcpHub: Awaited<ReturnType<typeof startAgentMcp>>
  try {
    mcpHub = options.manage
      ? undefined
      : await startAgentMcp(options.mcp.servers, options.mcp.allow, say, (line) =>
          process.stderr.write(`agent: ${line}\n`),
        )
  } catch (err) {
    if (err instanceof UsageError) return fail(err.message, EXIT_USAGE)
    if (err instanceof AgentMcpError) return fail(err.message)
    throw err
  }
  const iceSource = agentRtcConfiguration(options, (m) => process.stderr.write(`agent: ${m}\n`))
  const runtime = await createNodeRuntime({
    room: options.room,
    // this person's member (the link's owner and seed): its agents and tabs are one member;
    // a one-off action admits the owner only when named (else a tab or agent that stays does)
    member: {
      ...options.member,
      ...(options.manage && options.member.name === undefined ? { admitSelf: false } : {}),
    },
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
    ...(mcpHub ? { mcpHub } : {}),
    log: (message) => say(`  ${message}`),
    // the network's warnings, one short line each; its chatter only with DEBUG
    netLogger: terminalNetLogger((line) => say(`${clock(Date.now())} ${line}`)),
  })
  if (options.manage) {
    // an owner's one-off change: do it, print the result, leave
    try {
      await manage(runtime, options, options.manage, lock.dir)
    } catch (err) {
      await runtime.stop()
      return fail((err as Error).message)
    }
    await runtime.stop()
    process.exit(0)
  }
  // a removed member's agent says so, as its tab would, and stops
  exitWhenRemoved(runtime, () => runtime.stop())
  // Ctrl-C and SIGTERM are ours before the line that says the agent runs: a
  // signal sent as soon as it is read must stop it cleanly, not kill it
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
  const { model } = options
  console.log(
    `Murmuration ${options.role} ${runtime.peerId} in room "${options.room.name}" (${options.role === 'observer' ? 'no LLM' : `${model.provider}/${model.model}`})${options.role === 'executor' ? `; tools: ${toolsLine(toolsInUse(options.tools, model.provider === 'offline'))}` : ''}`,
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

  // what the role does, each entry once, in order, when it happens (a wait as it starts)
  if (!options.quiet) {
    for (const line of earlierLines(runtime.activity().recent)) console.log(line)
    runtime.on('entry', (entry) => console.log(activityLine(entry)))
  }
  // a call that failed for good: one line, when it ends
  runtime.on('call', (entry) => {
    for (const line of callLines(entry)) say(`${clock(Date.now())} ${line}`)
  })
  if (options.role === 'observer' && !options.quiet) printTree(runtime)
  // which leaf an executor took: the activity line says only that it claimed a task
  if (options.role === 'executor' && !options.quiet) {
    let held = new Set<string>()
    runtime.on('tree', (tree) => {
      const now = leavesHeldBy(tree, runtime.peerId)
      for (const leaf of now)
        if (!held.has(leaf.task))
          console.log(
            `${clock(Date.now())} working on leaf ${leaf.number} “${leaf.text}” of “${leaf.root}”`,
          )
      held = new Set(now.map((leaf) => leaf.task))
    })
  }
  if (options.goal) submitGoal(runtime, options.goal, options)
}
