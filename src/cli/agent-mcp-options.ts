/**
 * An agent's MCP options (issue 57), checked before anything starts:
 *
 * - `--mcp "[NAME=]COMMAND [ARGS…]"` (repeatable): a stdio server the agent
 *   starts as its child; the command is split as a shell would split plain
 *   words and quotes (no variables, no pipes: it is not run by a shell);
 * - `--mcp-url "[NAME=]URL"` (repeatable): a Streamable HTTP server;
 * - `--allow-tool GROUP/TOOL[=own|anyone]` (repeatable; `GROUP/*` for every
 *   tool of a group): turns a tool on. Every tool is off without it; turned
 *   on, a read-only tool serves any member's goals and one that may write
 *   (or reaches beyond its server) only this person's own, unless `=anyone`
 *   (or `=own`) says otherwise.
 *
 * NAME is the group's name in the room (default: the server's own name).
 */
import { accessWhenTurnedOn } from '../runtime/mcp/consent'
import type { McpConsent, McpServerSpec, McpServerStatus, ToolAccess } from '../runtime/mcp/types'
import { MAX_TOOL_GROUP_NAME, TOOL_GROUP_NAME, TOOL_NAME } from '../protocol/tool-groups'
import { UsageError } from './options'

/** One --allow-tool: a tool (or `*`: every tool) of a group, and for whom when said. */
export interface ToolAllow {
  group: string
  tool: string
  access?: Exclude<ToolAccess, 'off'>
}

const NAMED = /^([a-z0-9][a-z0-9-]*)=(.*)$/s

function groupName(name: string, option: string): string {
  if (name.length > MAX_TOOL_GROUP_NAME || !TOOL_GROUP_NAME.test(name))
    throw new UsageError(
      `${option}: the name "${name}" must be lowercase letters, digits and dashes, at most ${MAX_TOOL_GROUP_NAME}`,
    )
  return name
}

/** A command line split into words: spaces separate, quotes group, a backslash escapes. */
export function splitCommand(line: string): string[] {
  const words: string[] = []
  let word = ''
  let started = false
  let quote: '"' | "'" | null = null
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (quote) {
      if (c === quote) quote = null
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i]
      else word += c
    } else if (c === '"' || c === "'") {
      quote = c
      started = true
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i]
      started = true
    } else if (/\s/.test(c)) {
      if (started) words.push(word)
      word = ''
      started = false
    } else {
      word += c
      started = true
    }
  }
  if (quote) throw new UsageError(`--mcp: an unclosed ${quote} in "${line}"`)
  if (started) words.push(word)
  return words
}

export function parseMcpCommand(value: string): McpServerSpec {
  const named = NAMED.exec(value.trim())
  const name = named ? groupName(named[1]!, '--mcp') : undefined
  const words = splitCommand(named ? named[2]! : value)
  if (words.length === 0)
    throw new UsageError(
      '--mcp needs a command, e.g. --mcp "npx -y @modelcontextprotocol/server-filesystem /srv/notes"',
    )
  const [command, ...args] = words
  return { kind: 'stdio', ...(name ? { name } : {}), command: command!, args }
}

export function parseMcpUrl(value: string): McpServerSpec {
  const trimmed = value.trim()
  const named = /^([a-z0-9][a-z0-9-]*)=(https?:\/\/.*)$/s.exec(trimmed)
  const name = named ? groupName(named[1]!, '--mcp-url') : undefined
  const raw = named ? named[2]! : trimmed
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new UsageError(
      `--mcp-url must be a server's address such as http://127.0.0.1:3001/mcp, got "${value}"`,
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--mcp-url must be an http(s) URL, got "${value}"`)
  return { kind: 'http', ...(name ? { name } : {}), url: raw }
}

export function parseAllowTool(value: string): ToolAllow {
  const m = /^([^/=]+)\/([^=]+)(?:=(own|anyone))?$/.exec(value.trim())
  if (!m)
    throw new UsageError(
      `--allow-tool must be GROUP/TOOL, GROUP/* or either with =own or =anyone, got "${value}"`,
    )
  const group = groupName(m[1]!, '--allow-tool')
  const tool = m[2]!
  if (tool !== '*' && !TOOL_NAME.test(tool))
    throw new UsageError(`--allow-tool: "${tool}" is not a tool name`)
  return { group, tool, ...(m[3] ? { access: m[3] as Exclude<ToolAccess, 'off'> } : {}) }
}

/**
 * The consent --allow-tool gives once the servers are connected and their
 * tools known; a group or tool that none of them has is a mistake (UsageError).
 */
export function consentFrom(
  allows: readonly ToolAllow[],
  servers: readonly McpServerStatus[],
): McpConsent {
  const consent: McpConsent = {}
  for (const allow of allows) {
    const server = servers.find((s) => s.group === allow.group)
    if (!server)
      throw new UsageError(
        `--allow-tool ${allow.group}/${allow.tool}: no server is named ${allow.group} (${servers.map((s) => s.group).join(', ') || 'none connected'})`,
      )
    const tools =
      allow.tool === '*' ? server.tools : server.tools.filter((t) => t.name === allow.tool)
    if (tools.length === 0)
      throw new UsageError(
        `--allow-tool ${allow.group}/${allow.tool}: ${allow.group} has no such tool (it has ${server.tools.map((t) => t.name).join(', ')})`,
      )
    consent[allow.group] ??= {}
    for (const tool of tools)
      consent[allow.group]![tool.name] = allow.access ?? accessWhenTurnedOn(tool)
  }
  return consent
}
