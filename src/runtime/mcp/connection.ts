/**
 * One MCP server, connected (issue 57): the AI SDK's MCP client
 * (@ai-sdk/mcp) over Streamable HTTP (a tab's, or an agent's --mcp-url) or
 * stdio (an agent's --mcp, a child process: stdio.node.ts). It lists the
 * server's tools with their annotations and calls them; it knows nothing of
 * consent (hub.ts asks before every call).
 *
 * Where it lives: in a tab, in the role worker, where the LLM calls run; in
 * an agent, in its process. `close()` ends the session (a stdio child is
 * killed), and every call takes its task's AbortSignal.
 */
import { createMCPClient, type MCPClient, type MCPTransport } from '@ai-sdk/mcp'
import type { ToolCallOutcome } from '../../llm/toolbox'
import type { McpServerSpec, McpToolInfo } from './types'

/** How long a server may take to start and answer `initialize` (an `npx` may download first). */
export const MCP_CONNECT_TIMEOUT_MS = 60_000
/** How long one tool call may take before it counts as failed. */
export const MCP_CALL_TIMEOUT_MS = 120_000
/**
 * After a call that threw, how long the server has to list its tools again:
 * a server that still answers only refused that call (bad arguments, its own
 * error); one that does not is gone, and its badge must not say connected.
 */
export const MCP_PROBE_TIMEOUT_MS = 5_000
/** Tools read from one server: a page or two; more are left out (and said so). */
export const MAX_SERVER_TOOLS = 64

/** Makes the transport of a stdio server; absent where processes cannot be started (a tab). */
export type StdioTransportFactory = (command: string, args: string[]) => MCPTransport

export class McpConnectError extends Error {
  override name = 'McpConnectError'
}

export interface McpConnection {
  /** the server's own name and version, as it introduced itself */
  readonly server: string
  readonly serverName: string
  readonly tools: readonly McpToolInfo[]
  call(name: string, input: unknown, signal?: AbortSignal): Promise<ToolCallOutcome>
  /** why the server stopped answering (found after a call that failed), or null */
  readonly lost: string | null
  close(): Promise<void>
}

type CallToolResult = {
  content?: unknown[]
  structuredContent?: unknown
  isError?: boolean
  toolResult?: unknown
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)

/** A tool's answer as text: its text parts, and a mark for each other kind of part. */
export function resultText(result: CallToolResult): string {
  const parts: string[] = []
  for (const item of result.content ?? []) {
    if (!isObj(item)) continue
    if (item.type === 'text' && typeof item.text === 'string') parts.push(item.text)
    else if (item.type === 'image' || item.type === 'audio')
      parts.push(`[${String(item.type)}: ${String(item.mimeType ?? 'unknown type')}]`)
    else if (item.type === 'resource' && isObj(item.resource))
      parts.push(
        typeof item.resource.text === 'string'
          ? item.resource.text
          : `[resource ${String(item.resource.uri)}]`,
      )
    else if (item.type === 'resource_link') parts.push(`[link ${String(item.uri)}]`)
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent))
  if (parts.length === 0 && result.toolResult !== undefined)
    parts.push(JSON.stringify(result.toolResult))
  return parts.join('\n')
}

function toolInfo(tool: {
  name: string
  description?: string
  inputSchema: Record<string, unknown>
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean }
}): McpToolInfo {
  const a = tool.annotations ?? {}
  const readOnly = a.readOnlyHint ?? false
  return {
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema,
    // the MCP spec's defaults: a tool says it only reads; otherwise it may destroy and reach out
    // (destructiveHint means something only for a tool that writes)
    readOnly,
    destructive: !readOnly && (a.destructiveHint ?? true),
    openWorld: a.openWorldHint ?? true,
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Connects to `spec` and lists its tools; throws McpConnectError with the server's own words. */
export async function connectMcp(
  spec: McpServerSpec,
  stdio: StdioTransportFactory | undefined,
  signal?: AbortSignal,
): Promise<McpConnection> {
  let transport: MCPTransport | { type: 'http'; url: string; fetch: typeof fetch }
  // the transport calls its fetch as a method: in a Worker the global one then throws "Illegal invocation"
  if (spec.kind === 'http')
    transport = { type: 'http', url: spec.url, fetch: (input, init) => fetch(input, init) }
  else if (stdio) transport = stdio(spec.command, spec.args)
  else throw new McpConnectError('this peer cannot start programs: use a server URL')
  const timeout = AbortSignal.timeout(MCP_CONNECT_TIMEOUT_MS)
  const bounded = signal ? AbortSignal.any([signal, timeout]) : timeout
  let client: MCPClient
  try {
    client = await createMCPClient({
      transport,
      clientName: 'murmuration',
      initializationOptions: { signal: bounded },
      onUncaughtError: () => {},
    })
  } catch (error) {
    throw new McpConnectError(errorText(error))
  }
  try {
    let listed = await client.listTools({ options: { signal: bounded } })
    const defs = [...listed.tools]
    while (listed.nextCursor && defs.length < MAX_SERVER_TOOLS) {
      listed = await client.listTools({
        params: { cursor: listed.nextCursor },
        options: { signal: bounded },
      })
      defs.push(...listed.tools)
    }
    const kept = defs.slice(0, MAX_SERVER_TOOLS)
    const callable = client.toolsFromDefinitions({ tools: kept })
    const info = client.serverInfo
    let lost: string | null = null
    return {
      server: `${info.name} ${info.version}`.trim(),
      serverName: info.name,
      tools: kept.map(toolInfo),
      async call(name, input, callSignal) {
        const tool = callable[name]
        if (!tool) return { status: 'error', text: `the server has no tool named ${name}` }
        const limit = AbortSignal.timeout(MCP_CALL_TIMEOUT_MS)
        const abortSignal = callSignal ? AbortSignal.any([callSignal, limit]) : limit
        try {
          const result = (await tool.execute(input, {
            toolCallId: `murmuration-${Date.now().toString(36)}`,
            messages: [],
            abortSignal,
          })) as CallToolResult
          return { status: result.isError ? 'error' : 'ok', text: resultText(result) }
        } catch (error) {
          callSignal?.throwIfAborted()
          const why = limit.aborted
            ? `no answer in ${MCP_CALL_TIMEOUT_MS / 1000} s`
            : errorText(error)
          if (!limit.aborted) {
            const probe = { signal: AbortSignal.timeout(MCP_PROBE_TIMEOUT_MS) }
            await client.listTools({ options: probe }).catch((gone) => (lost = errorText(gone)))
          }
          return { status: 'error', text: `the call failed: ${why}` }
        }
      },
      get lost() {
        return lost
      },
      close: () => client.close(),
    }
  } catch (error) {
    await client.close().catch(() => {})
    throw new McpConnectError(errorText(error))
  }
}
