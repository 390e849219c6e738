/**
 * An agent's MCP servers at start (issue 57): started (stdio) or reached
 * (Streamable HTTP) before the agent joins, so a server that fails stops it
 * with the server's own words, and what each offers is printed: its tools,
 * and who may use each (--allow-tool). Its person is not there to approve
 * another member's call of a tool kept for their own goals: such a call is
 * refused, and the line printed says why and which flag would allow it.
 */
import { McpHub } from '../runtime/mcp/hub'
import { nodeStdio } from '../runtime/mcp/stdio.node'
import type { McpServerStatus } from '../runtime/mcp/types'
import { consentFrom, type ToolAllow } from './agent-mcp-options'
import { toolTraits } from '../runtime/mcp/consent'
import type { McpServerSpec } from '../runtime/mcp/types'

/** The lines that say what a connected server offers, and to whom. */
export function serverLines(server: McpServerStatus): string[] {
  // each tool with what it may do, by the server's annotations
  const names = (access: string) =>
    server.tools
      .filter((t) => t.access === access)
      .map((t) => `${t.name} (${toolTraits(t).join(', ')})`)
  const anyone = names('anyone')
  const own = names('own')
  const off = names('off')
  const lines = [
    `  MCP ${server.group} (${server.server ?? 'server'}; ${server.target}): ${server.tools.length} tools`,
  ]
  if (anyone.length) lines.push(`    for any member's goals: ${anyone.join(', ')}`)
  if (own.length) lines.push(`    for your own goals only (others' are refused): ${own.join(', ')}`)
  if (off.length)
    lines.push(
      `    off: ${off.join(', ')} (--allow-tool ${server.group}/NAME turns one on, ${server.group}/* all)`,
    )
  return lines
}

/** A refusal, with the flag that would have allowed it. */
export function refusalLine(line: string): string {
  const kept = /(\S+)\/(\S+) is kept for its person's own goals/.exec(line)
  return kept
    ? `${line} (--allow-tool ${kept[1]}/${kept[2]}=anyone lets any member's goal use it)`
    : line
}

export class AgentMcpError extends Error {
  override name = 'AgentMcpError'
}

/**
 * Connects the agent's servers and applies --allow-tool; prints what each
 * offers. Throws AgentMcpError (a server did not connect) or UsageError (an
 * --allow-tool names no tool they have), after closing what it started.
 */
export async function startAgentMcp(
  servers: readonly McpServerSpec[],
  allow: readonly ToolAllow[],
  say: (line: string) => void,
  warn: (line: string) => void,
): Promise<McpHub | undefined> {
  if (servers.length === 0) return undefined
  const hub = new McpHub({
    stdio: nodeStdio,
    canAsk: false,
    log: (line) => warn(refusalLine(line)),
  })
  // a stdio child must not outlive the agent, however it ends
  process.once('exit', () => void hub.close())
  await hub.setServers(servers)
  const status = hub.status().servers
  const failed = status.filter((s) => s.state === 'failed')
  try {
    if (failed.length > 0)
      throw new AgentMcpError(
        failed.map((s) => `the MCP server ${s.target} did not connect: ${s.error}`).join('; '),
      )
    hub.setConsent(consentFrom(allow, status))
  } catch (err) {
    await hub.close()
    throw err
  }
  for (const server of hub.status().servers) for (const line of serverLines(server)) say(line)
  return hub
}
