/**
 * An executor's MCP servers (issue 57): connected, named as tool groups,
 * with its person's consent per tool, and the approvals waiting for them.
 * What it announces (`offered`) is what its person turned on; what a leaf's
 * model may call (`toolbox`) goes through `decideCall` (consent.ts) at every
 * call, with the goal's owner fixed by the caller from the signed plan,
 * never by the model.
 *
 * A tab's hub lives in its role worker and asks its person (`canAsk`); an
 * agent's lives in its process and refuses what it would have to ask,
 * logging why. `close()` ends every session (stdio children included).
 */
import type { Toolbox, ToolCallOutcome } from '../../llm/toolbox'
import { inputText } from '../../llm/toolbox'
import {
  groupNameFrom,
  MAX_GROUP_TOOLS,
  MAX_TOOL_GROUP_NAME,
  MAX_TOOL_GROUPS,
  TOOL_NAME,
  MAX_TOOL_NAME,
  type ToolGroup,
} from '../../protocol/tool-groups'
import { accessOf, decideCall } from './consent'
import type { McpConnection, StdioTransportFactory } from './connection'
import { explainConnectError } from './cors'
import type { McpConsent, McpServerSpec, McpServerStatus, McpStatus, ToolApproval } from './types'

/**
 * How long another member's call waits for its person's answer. A person
 * away from the tab should not hold a leaf for ever: unanswered, the call is
 * refused and the model is told so.
 */
export const APPROVAL_TIMEOUT_MS = 10 * 60_000

/** Which goal a call works for, fixed by the executor from the plan (never by the model). */
export interface GoalContext {
  /** the root goal, and its text */
  goal: string | null
  goalText: string
  /** its author is this executor's person (any of their tabs or agents) */
  ownGoal: boolean
}

export interface McpHubInit {
  /** starts stdio servers (an agent); absent in a tab, which takes URLs only */
  stdio?: StdioTransportFactory
  /** its person can be asked now (a tab); false: refuse instead (a headless agent) */
  canAsk: boolean
  /** one line per refused call (an agent prints them; a server's failure is in its status) */
  log?: (line: string) => void
  now?: () => number
}

interface Server {
  spec: McpServerSpec
  key: string
  group: string
  state: McpServerStatus['state']
  error?: string
  connection?: McpConnection
  aborter: AbortController
}

interface Waiting extends ToolApproval {
  resolve: (allow: boolean) => void
}

const specKey = (spec: McpServerSpec): string =>
  spec.kind === 'http'
    ? `http ${spec.name ?? ''} ${spec.url}`
    : `stdio ${spec.name ?? ''} ${JSON.stringify([spec.command, ...spec.args])}`

const targetOf = (spec: McpServerSpec): string =>
  spec.kind === 'http' ? spec.url : [spec.command, ...spec.args].join(' ')

export class McpHub {
  private servers: Server[] = []
  private consent: McpConsent = {}
  private readonly waiting = new Map<string, Waiting>()
  private counter = 0
  private readonly now: () => number
  private readonly listeners = new Set<() => void>()

  constructor(private readonly init: McpHubInit) {
    this.now = init.now ?? Date.now
  }

  /**
   * Told when something a person should see, or the room should hear, changed:
   * a server's state, consent, an approval asked or answered. Returns the
   * way to stop listening.
   */
  listen(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * The servers from now on: new ones are connected (resolves once each has
   * connected or failed), ones no longer listed are closed.
   */
  async setServers(specs: readonly McpServerSpec[]): Promise<void> {
    const wanted = new Map(specs.map((spec) => [specKey(spec), spec]))
    for (const server of this.servers.filter((s) => !wanted.has(s.key))) this.drop(server)
    this.servers = this.servers.filter((s) => wanted.has(s.key))
    const fresh: Server[] = []
    for (const [key, spec] of wanted) {
      if (this.servers.some((s) => s.key === key)) continue
      const server: Server = {
        spec,
        key,
        group: this.uniqueGroup(spec.name ?? groupNameFrom(targetOf(spec))),
        state: 'connecting',
        aborter: new AbortController(),
      }
      this.servers.push(server)
      fresh.push(server)
    }
    this.changed()
    await Promise.all(fresh.map((server) => this.connect(server)))
  }

  /** Its person's consent from now on; a call already running is not stopped. */
  setConsent(consent: McpConsent): void {
    this.consent = structuredClone(consent)
    this.changed()
  }

  /** What the executor announces: each ready server's tools its person turned on. */
  offered(): ToolGroup[] {
    const groups: ToolGroup[] = []
    for (const server of this.servers) {
      const tools = (server.connection?.tools ?? [])
        .filter((tool) => TOOL_NAME.test(tool.name) && tool.name.length <= MAX_TOOL_NAME)
        .flatMap((tool) => {
          const access = accessOf(this.consent, server.group, tool.name)
          if (access === 'off') return []
          const { readOnly, destructive, openWorld } = tool
          return [
            { name: tool.name, readOnly, destructive, openWorld, anyone: access === 'anyone' },
          ]
        })
        .slice(0, MAX_GROUP_TOOLS)
      if (tools.length > 0) groups.push({ name: server.group, tools })
    }
    return groups.slice(0, MAX_TOOL_GROUPS)
  }

  /**
   * The tools of `group` its person turned on, for one leaf of `context`'s
   * goal; undefined when the group is not offered now.
   */
  toolbox(group: string, context: GoalContext): Toolbox | undefined {
    const offered = this.offered().find((g) => g.name === group)
    const server = this.servers.find((s) => s.group === group)
    const connection = server?.connection
    if (!offered || !connection) return undefined
    const on = new Set(offered.tools.map((t) => t.name))
    return {
      group,
      tools: connection.tools
        .filter((tool) => on.has(tool.name))
        .map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
      call: (name, input, signal) => this.call(connection, group, name, input, context, signal),
    }
  }

  /** What its person sees: each server, its tools and their access, and the calls waiting for them. */
  status(): McpStatus {
    return {
      servers: this.servers.map((server) => ({
        group: server.group,
        kind: server.spec.kind,
        target: targetOf(server.spec),
        state: server.state,
        ...(server.error ? { error: server.error } : {}),
        ...(server.connection ? { server: server.connection.server } : {}),
        tools: (server.connection?.tools ?? []).map(({ inputSchema: _schema, ...tool }) => ({
          ...tool,
          access: accessOf(this.consent, server.group, tool.name),
        })),
      })),
      approvals: [...this.waiting.values()].map(({ resolve: _resolve, ...approval }) => approval),
    }
  }

  /** Its person's answer to a waiting call (an unknown id: already answered, or it gave up). */
  answer(id: string, allow: boolean): void {
    this.waiting.get(id)?.resolve(allow)
  }

  /** Ends every session and refuses every waiting call. */
  async close(): Promise<void> {
    for (const waiting of this.waiting.values()) waiting.resolve(false)
    const servers = this.servers
    this.servers = []
    await Promise.all(servers.map((server) => this.drop(server)))
  }

  private async call(
    connection: McpConnection,
    group: string,
    tool: string,
    input: unknown,
    context: GoalContext,
    signal?: AbortSignal,
  ): Promise<ToolCallOutcome> {
    // the person's consent now, at the call: a tool turned off mid-task is refused
    const access = accessOf(this.consent, group, tool)
    const decision = decideCall(access, group, tool, {
      ownGoal: context.ownGoal,
      canAsk: this.init.canAsk,
    })
    if (decision.kind === 'refuse') return this.refuse(decision.why, context)
    if (decision.kind === 'ask' && !(await this.ask(group, tool, input, context, signal)))
      return this.refuse(`its person did not allow ${group}/${tool} for this goal`, context)
    const outcome = await connection.call(tool, input, signal)
    if (connection.lost !== null) this.lost(connection)
    return outcome
  }

  /** A server that stopped answering: not connected, and its tools no longer offered. */
  private lost(connection: McpConnection): void {
    const server = this.servers.find((s) => s.connection === connection)
    if (!server || server.state === 'failed') return
    server.state = 'failed'
    server.error = `it stopped answering (${connection.lost}); remove it and add it again once it runs`
    delete server.connection
    void connection.close().catch(() => {})
    this.changed()
  }

  private refuse(why: string, context: GoalContext): ToolCallOutcome {
    this.init.log?.(`refused a tool call for “${context.goalText}”: ${why}`)
    return { status: 'refused', text: `refused: ${why}. Do not try another way around it.` }
  }

  /** Waits for its person's answer (or the timeout, or the task's end: both refuse). */
  private ask(
    group: string,
    tool: string,
    input: unknown,
    context: GoalContext,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const id = `approval-${++this.counter}`
    return new Promise<boolean>((resolve) => {
      const done = (allow: boolean) => {
        if (!this.waiting.delete(id)) return
        clearTimeout(timer)
        signal?.removeEventListener('abort', aborted)
        this.changed()
        resolve(allow)
      }
      const aborted = () => done(false)
      const timer = setTimeout(() => done(false), APPROVAL_TIMEOUT_MS)
      signal?.addEventListener('abort', aborted, { once: true })
      this.waiting.set(id, {
        id,
        group,
        tool,
        input: inputText(input),
        goal: context.goal,
        goalText: context.goalText,
        since: this.now(),
        resolve: done,
      })
      this.changed()
      if (signal?.aborted) done(false)
    })
  }

  private async connect(server: Server): Promise<void> {
    try {
      // the MCP client is loaded at the first server, not with every role worker
      const { connectMcp } = await import('./connection')
      const connection = await connectMcp(server.spec, this.init.stdio, server.aborter.signal)
      if (!this.servers.includes(server)) {
        await connection.close()
        return
      }
      server.connection = connection
      server.state = 'ready'
      // a server named for itself is renamed by what it says it is, once it says so
      if (!server.spec.name) {
        server.group = this.uniqueGroup(groupNameFrom(connection.serverName), server)
      }
    } catch (error) {
      server.state = 'failed'
      server.error = await explainConnectError(server.spec, error)
    }
    this.changed()
  }

  private drop(server: Server): Promise<void> {
    server.aborter.abort()
    const connection = server.connection
    server.connection = undefined
    return connection ? connection.close().catch(() => {}) : Promise.resolve()
  }

  /** `wanted`, or `wanted-2`, `wanted-3`… when another server has the name. */
  private uniqueGroup(wanted: string, self?: Server): string {
    const taken = new Set(this.servers.filter((s) => s !== self).map((s) => s.group))
    const base = wanted.slice(0, MAX_TOOL_GROUP_NAME - 3)
    if (!taken.has(wanted)) return wanted
    for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`
  }

  private changed(): void {
    for (const listener of this.listeners) listener()
  }
}
