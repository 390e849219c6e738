/**
 * Tool groups (since protocol version 8, issue 57): what an executor's
 * person brought as MCP servers and turned on, as the room learns it. A
 * group is one server under a short name its person chose (or the server's
 * own, made safe); each of its tools is announced by name with the MCP
 * annotations that say what it may do, and whether another member's goal may
 * use it without asking. Nothing else crosses the wire: never the command,
 * the URL, the folder, the environment or the server's own descriptions
 * (which are its author's words, and may hold anything).
 *
 * A leaf whose voters judged it to need a group (a judgement's `tool`) goes
 * only to an executor that announces that group (docs/PROTOCOL.md §5.4).
 */
import {
  MAX_GROUP_TOOLS,
  MAX_TOOL_GROUP_NAME,
  MAX_TOOL_GROUPS,
  MAX_TOOL_NAME,
  TOOL_GROUP_NAME,
  TOOL_NAME,
} from './limits'
import { z } from './zod'

export {
  MAX_GROUP_TOOLS,
  MAX_TOOL_GROUP_NAME,
  MAX_TOOL_GROUPS,
  MAX_TOOL_NAME,
  TOOL_GROUP_NAME,
  TOOL_NAME,
}

export const toolGroupNameSchema = z
  .string()
  .min(1)
  .max(MAX_TOOL_GROUP_NAME)
  .regex(TOOL_GROUP_NAME, 'a tool group is lowercase letters, digits and dashes')

export const toolNameSchema = z
  .string()
  .min(1)
  .max(MAX_TOOL_NAME)
  .regex(TOOL_NAME, 'a tool name is letters, digits, _, - and .')

/** One tool of a group as its executor announces it. */
export const offeredToolSchema = z.strictObject({
  name: toolNameSchema,
  /** MCP readOnlyHint: it only reads */
  readOnly: z.boolean(),
  /** MCP destructiveHint (meaningful when not readOnly): it may delete or overwrite */
  destructive: z.boolean(),
  /** MCP openWorldHint: it reaches beyond its server (the web, other people) */
  openWorld: z.boolean(),
  /**
   * its person lets any member's goal use it without asking; false: only
   * their own goals do, and another member's call waits for their approval
   * (a tab) or is refused (an agent)
   */
  anyone: z.boolean(),
})

export const toolGroupSchema = z
  .strictObject({
    name: toolGroupNameSchema,
    tools: z.array(offeredToolSchema).min(1).max(MAX_GROUP_TOOLS),
  })
  .refine((group) => new Set(group.tools.map((t) => t.name)).size === group.tools.length, {
    message: 'a tool is announced once per group',
    path: ['tools'],
  })

export const toolGroupsSchema = z
  .array(toolGroupSchema)
  .min(1)
  .max(MAX_TOOL_GROUPS)
  .refine((groups) => new Set(groups.map((g) => g.name)).size === groups.length, {
    message: 'a group is announced once',
  })

export type OfferedTool = z.infer<typeof offeredToolSchema>
export type ToolGroup = z.infer<typeof toolGroupSchema>

/**
 * The groups of a room's executors, merged by name: a tool is listed once,
 * `anyone` if some executor offers it so. What planners are told.
 */
export function mergeToolGroups(lists: Iterable<readonly ToolGroup[]>): ToolGroup[] {
  const byName = new Map<string, Map<string, OfferedTool>>()
  for (const groups of lists) {
    for (const group of groups) {
      const tools = byName.get(group.name) ?? new Map<string, OfferedTool>()
      byName.set(group.name, tools)
      for (const tool of group.tools) {
        const known = tools.get(tool.name)
        tools.set(tool.name, known ? { ...known, anyone: known.anyone || tool.anyone } : tool)
      }
    }
  }
  return [...byName.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, tools]) => ({
      name,
      tools: [...tools.values()].sort((a, b) => (a.name < b.name ? -1 : 1)),
    }))
}

/** A name fit to announce, from a server's own name ("secure-filesystem-server" → that; "mcp-servers/everything" → "everything"). */
export function groupNameFrom(serverName: string): string {
  const last = serverName.split('/').pop() ?? ''
  const slug = last
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_TOOL_GROUP_NAME)
    .replace(/-+$/, '')
  return slug || 'tools'
}
